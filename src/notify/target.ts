import { InputError } from '../errors.js';
import { maskUrl } from '../util/secrets.js';

/**
 * How a notification is worded on the wire: Slack's `{"text"}`, ntfy's
 * plain text with headers, our JSON, or the desktop's notifier.
 */
export type NotifyFormat = 'slack' | 'ntfy' | 'json' | 'desktop';

/** Where one notification goes, ready to send. */
export interface NotifyTarget {
  format: NotifyFormat;
  /** The URL to POST to, without a format prefix; '' for `desktop`. */
  url: string;
  /** The target as it may be shown: scheme and host only (util/secrets.ts maskUrl). */
  shown: string;
  /** Which entry it is, for a warning: `supervisor.notify[1]`, `--notify`, with `env:NAME` when read from one. */
  where?: string;
}

/**
 * One entry of `supervisor.notify` / `--notify` as written: a target,
 * the name of a variable holding one, or what is wrong with it.
 */
export type NotifyEntry =
  { ok: true; target: NotifyTarget } | { ok: true; envName: string } | { ok: false; reason: string };

const PREFIXES: readonly NotifyFormat[] = ['slack', 'ntfy', 'json'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** How each kind of entry is written, for the fix in a message. */
export const NOTIFY_FORMS =
  'an http(s) URL (Slack webhook, ntfy topic, or any URL for JSON), ' +
  'slack+URL, ntfy+URL or json+URL to force a format, desktop, or env:NAME';

/** Read one entry (pure). The entry itself never appears in a reason: it may hold a token. */
export function parseNotifyEntry(entry: string): NotifyEntry {
  const text = entry.trim();
  if (text === 'desktop') return { ok: true, target: { format: 'desktop', url: '', shown: 'desktop' } };
  if (text.startsWith('env:')) {
    const name = text.slice(4);
    return ENV_NAME.test(name)
      ? { ok: true, envName: name }
      : {
          ok: false,
          reason:
            'env: must be followed by the name of an environment variable (letters, digits, _), e.g. env:SLACK_WEBHOOK',
        };
  }
  const forced = /^([a-z]+)\+(?=[a-z][\w+.-]*:)/i.exec(text);
  const shown = maskUrl(text);
  if (forced && !PREFIXES.includes((forced[1] as string).toLowerCase() as NotifyFormat)) {
    return {
      ok: false,
      reason: `${shown} has an unknown prefix ${forced[1] as string}+ (known: slack+, ntfy+, json+)`,
    };
  }
  const rest = forced ? text.slice(forced[0].length) : text;
  let url: URL;
  try {
    url = new URL(rest);
  } catch {
    return { ok: false, reason: `${shown} is not a URL` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, reason: `${shown} is not an http or https URL` };
  const format = forced ? ((forced[1] as string).toLowerCase() as NotifyFormat) : formatOf(url);
  return { ok: true, target: { format, url: url.href, shown } };
}

/** The format a URL implies: Slack's incoming webhooks, ntfy.sh or a host named ntfy.*, else JSON (pure). */
export function formatOf(url: URL): NotifyFormat {
  if (url.hostname === 'hooks.slack.com') return 'slack';
  if (url.hostname === 'ntfy.sh' || url.hostname.startsWith('ntfy.')) return 'ntfy';
  return 'json';
}

/** Why an entry is refused, as `where` names it, with the fix; undefined when it is fine (pure). */
export function notifyProblem(entry: unknown, where: string): string | undefined {
  if (typeof entry !== 'string') return `${where} must be a string: ${NOTIFY_FORMS}.`;
  const parsed = parseNotifyEntry(entry);
  return parsed.ok ? undefined : `${where}: ${parsed.reason}. Write ${NOTIFY_FORMS}.`;
}

/**
 * Every entry as a target, `env:NAME` read from `env` (pure). A malformed entry, or a variable
 * holding one, is an InputError (exit 2); a variable not set is returned in `unset`, to be warned of.
 */
export function resolveTargets(
  entries: ReadonlyArray<{ entry: string; where: string }>,
  env: Readonly<Record<string, string | undefined>>,
): { targets: NotifyTarget[]; unset: Array<{ name: string; where: string }> } {
  const targets: NotifyTarget[] = [];
  const unset: Array<{ name: string; where: string }> = [];
  for (const { entry, where } of entries) {
    const parsed = parseNotifyEntry(entry);
    if (!parsed.ok) throw new InputError(notifyProblem(entry, where) as string);
    if ('target' in parsed) {
      targets.push({ ...parsed.target, where });
      continue;
    }
    const value = env[parsed.envName];
    if (value === undefined || value.trim() === '') {
      unset.push({ name: parsed.envName, where });
      continue;
    }
    const inner = parseNotifyEntry(value);
    if (!inner.ok || !('target' in inner))
      throw new InputError(
        `${where}: the variable ${parsed.envName} ` +
          `${inner.ok ? 'names another variable' : `holds no usable target (${inner.reason})`}. ` +
          `Set it to ${NOTIFY_FORMS.replace(/, or env:NAME$/, '')}.`,
      );
    targets.push({ ...inner.target, where: `${where}, env:${parsed.envName}` });
  }
  return { targets, unset };
}

/** The variables `env:NAME` entries name that `env` does not set (pure); entries of any other kind are skipped. */
export function unsetNotifyVariables(entries: unknown, env: Readonly<Record<string, string | undefined>>): string[] {
  const list = Array.isArray(entries) ? (entries as unknown[]) : [];
  return list.flatMap((entry) => {
    const parsed = typeof entry === 'string' ? parseNotifyEntry(entry) : undefined;
    return parsed?.ok && 'envName' in parsed && !env[parsed.envName]?.trim() ? [parsed.envName] : [];
  });
}

/** The warning for an `env:NAME` entry whose variable is not set (pure). */
export function unsetWarning(name: string, where: string): string {
  return (
    `${where}: env:${name} is not set, so no notification goes there. ` +
    `Set ${name} in the run's environment, or remove the entry.`
  );
}

/**
 * Where notifications would go, as --dry-run shows them (pure):
 * masked, `env:NAME` with what it holds or that it is unset.
 */
export function describeTargets(
  entries: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  return entries.map((entry) => {
    const parsed = parseNotifyEntry(entry);
    if (!parsed.ok) return `${maskUrl(entry)} (${parsed.reason})`;
    if ('target' in parsed) return `${parsed.target.shown} (${parsed.target.format})`;
    const value = env[parsed.envName]?.trim();
    if (!value) return `env:${parsed.envName} (not set: nothing is sent)`;
    const inner = parseNotifyEntry(value);
    return inner.ok && 'target' in inner
      ? `env:${parsed.envName} → ${inner.target.shown} (${inner.target.format})`
      : `env:${parsed.envName} (holds no usable target)`;
  });
}
