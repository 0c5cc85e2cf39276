import { withoutControls } from './clean-text.js';

/**
 * The one rule for secrets (SPEC §5c, issue 19): what looks like a key, a token or a password
 * is shown as `…(set, N chars)` — that it is there and how long, never what it is — in every
 * output: events, the Supervisor Log, the report, the console lines and --dry-run. What looks
 * like one is found by its shape (maskText's patterns) and by its value: the values of the
 * secret-named variables a run knows (board/secret-values.ts), handed to every sink.
 */

// Names that usually hold a key, token or password (ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, …).
const SECRET_NAME = /(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)(?:_|$)/i;
// A command-line flag whose value is a secret: --api-key, --token, --auth-token, --password, -p is not (too common).
const SECRET_FLAG = /^--?(?:[\w-]*[-_])?(?:api[-_]?key|key|token|secret|password|passwd|credentials?|auth)$/i;
// The same as `--flag=value`.
const SECRET_FLAG_VALUE =
  /^(--?(?:[\w-]*[-_])?(?:api[-_]?key|key|token|secret|password|passwd|credentials?|auth))=(.+)$/is;
// In free text: an HTTP credential, `api_key=…` / `"token": "…"`, and keys by their well-known prefixes.
// Each runs in time linear in the text: a value is matched greedily to the end of its run of
// characters and `needsDigit` is checked on the match, never by a lookahead that would scan the
// same run again from every place a key word starts in it (quadratic on `--token=` × n).
const IN_TEXT: ReadonlyArray<{ pattern: RegExp; needsDigit: boolean }> = [
  {
    pattern: /((?:\bAuthorization["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token)\s+)?)|\bBearer\s+)([\w.~+/=-]{8,})/gi,
    needsDigit: false,
  },
  // A value with a digit in it: `secret: remember` in prose is not a secret, `token=abc123…` is.
  {
    pattern: new RegExp(
      String.raw`(?<![A-Za-z])((?:api[-_]?key|access[-_]?key|secret|token|password|passwd)["']?\s*[:=]\s*["']?)` +
        String.raw`([\w.~+/=-]{8,})`,
      'gi',
    ),
    needsDigit: true,
  },
  // A flag of a command quoted in text (`curl --token abc123…`, `--api-key=…`).
  {
    pattern: new RegExp(
      String.raw`(?<![\w-])(--?(?:[\w-]*[-_])?(?:api[-_]?key|key|token|secret|password|passwd|credentials?|` +
        String.raw`auth)[= ]["']?)([^\s"'\\]{6,})`,
      'gi',
    ),
    needsDigit: true,
  },
  {
    pattern: new RegExp(
      String.raw`()\b((?:sk|rk|pk)-(?:ant-|proj-|live-|test-)?[\w-]{16,}|gh[pousr]_\w{20,}|github_pat_\w{20,}|` +
        String.raw`xox[abprs]-[\w-]{10,}|AKIA[0-9A-Z]{16}|AIza[\w-]{30,})`,
      'g',
    ),
    needsDigit: false,
  },
];
// A cheap first look, so text with nothing like a secret is not scanned pattern by pattern.
const MAYBE = /bearer|basic|token|key|secret|passw|sk-|rk-|pk-|gh[pousr]_|github_pat_|xox|AKIA|AIza/i;
// Shorter values (`1`, `true`, `en`) would mask ordinary words everywhere.
const MIN_VALUE_CHARS = 6;

/** Whether an environment variable's name says it holds a secret (pure). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** A value's stand-in: it is set, and how long it is, never what it is (pure). */
export function mask(value: string): string {
  return `…(set, ${[...value].length} chars)`;
}

/**
 * The values never to show: those of `env`'s variables whose names look secret, and every value
 * of `also` (a role's `env:`, which is where keys go), longest first so a longer one is masked whole (pure).
 */
export function secretValues(
  env: Readonly<Record<string, string | undefined>>,
  also: Readonly<Record<string, string>> = {},
): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) if (value !== undefined && isSecretName(name)) values.add(value);
  for (const value of Object.values(also)) values.add(value);
  return [...values].filter((value) => value.length >= MIN_VALUE_CHARS).sort((a, b) => b.length - a.length);
}

/**
 * Text with every known secret value, HTTP credential, `key=value` secret and well-known key masked
 * (pure), in time linear in the text. Escape sequences and control characters are removed first
 * (util/clean-text.ts): a value split by `\x1b[0m` is found whole, as a terminal would show it. Text to be cut is cut
 * by
 * maskedHead or maskedTail, never before masking: half a value is no longer that value.
 */
export function maskText(text: string, secrets: readonly string[] = []): string {
  const clean = withoutControls(text);
  return masked(clean, secretSpans(clean, secrets), 0, clean.length);
}

/**
 * At most `max` characters from the start of `text` (and `…` when cut), masked as maskText masks
 * (pure): the cut is made before a secret it would split, so no part of one shows. Reads only
 * the first `max` characters and a margin, whatever the text's length.
 */
export function maskedHead(text: string, max: number, secrets: readonly string[] = []): string {
  const window = withoutControls(text.slice(0, max + margin(secrets)));
  if (window.length <= max) return masked(window, secretSpans(window, secrets), 0, window.length);
  const spans = secretSpans(window, secrets);
  let cut = max - 1;
  for (const [start, end] of spans) if (start < cut && cut < end) cut = start;
  return `${masked(window, spans, 0, cut)}…`;
}

/**
 * At most the last `max` characters of `text`, masked as maskText masks (pure), the cut made
 * after a secret it would split. Reads only the last `max` characters and a margin.
 */
export function maskedTail(text: string, max: number, secrets: readonly string[] = []): string {
  const window = withoutControls(text.slice(-(max + margin(secrets))));
  const spans = secretSpans(window, secrets);
  let cut = Math.max(0, window.length - max);
  // A value cut at the window's own start is not found: it lies before `cut`, the margin being longer.
  for (const [start, end] of spans) if (start < cut && cut < end) cut = end;
  return masked(window, spans, cut, window.length);
}

// Read beyond a cut: longer than any known value and any key found by its shape.
function margin(secrets: readonly string[]): number {
  return Math.max(4096, ...secrets.map((secret) => secret.length + 1));
}

// `text` from `from` to `to` with the spans inside masked (the spans sorted and apart, none cut by either end).
function masked(text: string, spans: ReadonlyArray<readonly [number, number]>, from: number, to: number): string {
  let out = '';
  let done = from;
  for (const [start, end] of spans) {
    if (start < from || end > to) continue;
    out += text.slice(done, start) + mask(text.slice(start, end));
    done = end;
  }
  return out + text.slice(done, to);
}

/**
 * Where the secrets of `text` lie (pure), sorted and apart: the known values, found by plain
 * substring search (indexOf: linear in the text per value), and what IN_TEXT's patterns find; the
 * leftmost wins, the longest where two start at the same place.
 */
function secretSpans(text: string, secrets: readonly string[]): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (const secret of secrets) {
    if (secret === '') continue;
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + secret.length))
      found.push([at, at + secret.length]);
  }
  if (MAYBE.test(text))
    for (const { pattern, needsDigit } of IN_TEXT)
      for (const match of text.matchAll(pattern)) {
        const [whole, lead = '', value = ''] = match;
        if (needsDigit && !/\d/.test(value)) continue;
        found.push([match.index + lead.length, match.index + whole.length]);
      }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const apart: Array<[number, number]> = [];
  for (const span of found) if (span[0] >= (apart.at(-1)?.[1] ?? 0)) apart.push(span);
  return apart;
}

/**
 * An argv with secrets masked: the value after a flag like `--api-key`,
 * `--token=…`, and whatever maskText masks (pure).
 */
export function maskArgv(argv: readonly string[], secrets: readonly string[] = []): string[] {
  return argv.map((arg, i) => {
    if (i > 0 && SECRET_FLAG.test(argv[i - 1] as string)) return mask(arg);
    const flag = SECRET_FLAG_VALUE.exec(arg);
    if (flag) return `${flag[1] as string}=${mask(flag[2] as string)}`;
    return maskText(arg, secrets);
  });
}

/**
 * A JSON-like value with maskText applied to every string in it,
 * keys kept (pure; returns the same object when nothing changed).
 */
export function maskDeep<T>(value: T, secrets: readonly string[] = []): T {
  if (typeof value === 'string') return maskText(value, secrets) as T;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => maskDeep(item, secrets));
    return (items.some((item, i) => item !== value[i]) ? items : value) as T;
  }
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([key, item]) => [key, maskDeep(item, secrets)] as const);
  return (
    entries.some(([key, item]) => item !== (value as Record<string, unknown>)[key])
      ? Object.fromEntries(entries)
      : value
  ) as T;
}

/**
 * A URL as it may be shown (pure): its scheme (with a format prefix such as `slack+`) and host
 * only, `https://hooks.slack.com/…`. A webhook's path, query, fragment and user name carry its
 * token, so they never appear; text that is no URL is masked whole.
 */
export function maskUrl(text: string): string {
  const prefix = /^([a-z]+)\+(?=[a-z][\w+.-]*:)/i.exec(text)?.[0] ?? '';
  let url: URL;
  try {
    url = new URL(text.slice(prefix.length));
  } catch {
    return mask(text);
  }
  if (url.host === '') return mask(text);
  const hidden =
    url.pathname.replace(/^\/$/, '') !== '' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== '';
  return `${prefix}${url.protocol}//${url.host}${hidden ? '/…' : ''}`;
}
