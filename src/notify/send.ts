import { execFile } from 'node:child_process';
import { markupFree, plainText, requestFor, type Notice } from './notice.js';
import type { NotifyTarget } from './target.js';

/**
 * How a notice leaves the machine: Node's fetch, a program for the desktop,
 * a pause between tries. Tests pass their own.
 */
export interface SendDeps {
  fetch: typeof fetch;
  /** Run a program to its end; resolves with why it failed, 'missing' when it is not installed, or undefined. */
  run: (file: string, args: string[], signal: AbortSignal, timeoutMs: number) => Promise<string | undefined>;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  platform: NodeJS.Platform;
}

/** How hard a delivery tries: tries in all, each one's timeout, and the pause before each retry. */
export interface SendPolicy {
  tries: number;
  timeoutMs: number;
  backoffMs: readonly number[];
}

/** About 5 s a try, three tries 0.5 s and 1 s apart (the run's end waits at most its cap for them: notifier.ts). */
export const SEND_POLICY: SendPolicy = { tries: 3, timeoutMs: 5_000, backoffMs: [500, 1_000] };

/** The real ones: Node's fetch, execFile, a timer. */
export const REAL_SEND: SendDeps = {
  fetch: (input, init) => fetch(input, init),
  run: (file, args, signal, timeoutMs) =>
    new Promise((resolve) => {
      execFile(file, args, { signal, timeout: timeoutMs, windowsHide: true }, (error) => {
        if (!error) return resolve(undefined);
        resolve((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : error.message.split('\n')[0]);
      });
    }),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    }),
  platform: process.platform,
};

/**
 * Deliver one notice to one target, trying again after a failure (a network error, a timeout,
 * an HTTP status of 300 or more). Resolves with why it failed in the end, 'missing' for a
 * desktop without its notifier, or undefined once delivered. Never rejects; `signal` gives up.
 */
export async function deliver(
  target: NotifyTarget,
  notice: Notice,
  signal: AbortSignal,
  deps: SendDeps = REAL_SEND,
  policy: SendPolicy = SEND_POLICY,
): Promise<string | undefined> {
  let why = 'not tried';
  for (let attempt = 0; attempt < policy.tries && !signal.aborted; attempt++) {
    if (attempt > 0) await deps.sleep(policy.backoffMs[attempt - 1] ?? policy.backoffMs.at(-1) ?? 0, signal);
    if (signal.aborted) break;
    if (target.format === 'desktop') {
      const argv = desktopArgv(deps.platform, notice);
      if (!argv) return 'missing';
      const failed = await deps.run(argv[0], argv.slice(1), signal, policy.timeoutMs);
      if (failed === undefined || failed === 'missing') return failed;
      why = failed;
      continue;
    }
    const result = await post(target, notice, signal, deps, policy.timeoutMs);
    if (result === undefined) return undefined;
    why = result;
  }
  return signal.aborted && why === 'not tried' ? "the run's end stopped waiting before it was sent" : why;
}

/** The desktop notifier's argv: notify-send on Linux and the BSDs, osascript on macOS; none elsewhere (pure). */
export function desktopArgv(platform: NodeJS.Platform, notice: Notice): [string, ...string[]] | undefined {
  const body = plainText(notice, false);
  const title = `kanban-supervisor: ${notice.title}`;
  if (platform === 'darwin')
    return ['osascript', '-e', `display notification ${appleString(body)} with title ${appleString(title)}`];
  if (platform === 'win32') return undefined;
  // The body is markup to most notification servers (freedesktop "body-markup"): a link there is clickable.
  return [
    'notify-send',
    '--app-name=kanban-supervisor',
    `--urgency=${notice.exitCode !== null && notice.exitCode !== 0 ? 'critical' : 'normal'}`,
    title,
    markupFree(body),
  ];
}

async function post(
  target: NotifyTarget,
  notice: Notice,
  stop: AbortSignal,
  deps: SendDeps,
  timeoutMs: number,
): Promise<string | undefined> {
  const { headers, body } = requestFor(target, notice);
  // fetch refuses a URL with a user name in it: it is sent as HTTP basic authentication (a protected ntfy topic).
  const url = new URL(target.url);
  if (url.username !== '' || url.password !== '') {
    headers.authorization =
      `Basic ` +
      `${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  try {
    const response = await deps.fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.any([stop, AbortSignal.timeout(timeoutMs)]),
    });
    // The status decides: a body that never ends is let go, not
    // waited for (a 200 is a delivery, not a timeout to retry).
    response.body?.cancel().catch(() => undefined);
    return response.status < 300 ? undefined : `HTTP ${response.status}`;
  } catch (error) {
    // The error's text may quote the URL (undici names it): only its kind is told.
    const name = error instanceof Error ? error.name : 'Error';
    if (name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
    if (name === 'AbortError') return "no answer before the run's end stopped waiting";
    const cause =
      error instanceof Error && error.cause instanceof Error
        ? ((error.cause as NodeJS.ErrnoException).code ?? error.cause.name)
        : name;
    return `could not connect (${cause})`;
  }
}

// An AppleScript string literal.
function appleString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
