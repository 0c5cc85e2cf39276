import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { notifySettings } from '../../src/notifications/settings.js';
import {
  agentSwitchedNotice,
  endNotice,
  limitWaitNotice,
  requestFor,
  waitingNotice,
  type Notice,
} from '../../src/notify/notice.js';
import { desktopArgv } from '../../src/notify/send.js';
import { describeTargets, parseNotifyEntry, resolveTargets, unsetNotifyVariables } from '../../src/notify/target.js';
import { maskUrl } from '../../src/util/secrets.js';
import type { EventOf } from '../../src/event-types.js';
import { testEvent } from '../helpers.js';

const AT = {
  file: '/boards/night/kanban.yaml',
  task: 'tasks/002.md',
  run: '2026-11-26T01-00-00-000Z-1',
  time: new Date('2026-11-26T01:30:00Z'),
};
const target = (entry: string) => {
  const parsed = parseNotifyEntry(entry);
  if (!parsed.ok || !('target' in parsed)) throw new Error(`not a target: ${entry}`);
  return parsed.target;
};

describe('maskUrl', () => {
  it(
    'keeps the scheme, a format prefix and the host (with its port), ' +
      'and hides path, query, fragment and user name',
    () => {
      expect(maskUrl('https://hooks.slack.com/services/T000/B000/XXXX')).toBe('https://hooks.slack.com/…');
      expect(maskUrl('https://ntfy.sh')).toBe('https://ntfy.sh');
      expect(maskUrl('https://user:pw@ntfy.example.com')).toBe('https://ntfy.example.com/…');
      expect(maskUrl('json+http://127.0.0.1:8080/?token=abc')).toBe('json+http://127.0.0.1:8080/…');
      expect(maskUrl('https://example.com/#frag')).toBe('https://example.com/…');
      expect(maskUrl('not a url at all')).toBe('…(set, 16 chars)');
    },
  );

  it('never shows a path, query or fragment token, whatever it holds', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9_-]{8,30}$/);
    fc.assert(
      fc.property(token, fc.constantFrom('/', '/x/', '?t=', '#', '/a?b=1&c='), (secret, where) => {
        const shown = maskUrl(`https://hooks.example.com${where}${secret}`);
        return !shown.includes(secret) && shown === 'https://hooks.example.com/…';
      }),
    );
  });
});

describe('a notify entry', () => {
  it('takes its format from the URL: Slack webhooks, ntfy.sh and ntfy.* hosts, else JSON; a prefix forces one', () => {
    expect(target('https://hooks.slack.com/services/T/B/X').format).toBe('slack');
    expect(target('https://ntfy.sh/topic').format).toBe('ntfy');
    expect(target('https://ntfy.example.org/topic').format).toBe('ntfy');
    expect(target('https://example.com/hook').format).toBe('json');
    expect(target('slack+http://127.0.0.1:9/x')).toEqual({
      format: 'slack',
      url: 'http://127.0.0.1:9/x',
      shown: 'slack+http://127.0.0.1:9/…',
    });
    expect(target('NTFY+https://push.lan/t').format).toBe('ntfy');
    expect(target('json+https://hooks.slack.com/services/T/B/X').format).toBe('json');
    expect(target('desktop')).toEqual({ format: 'desktop', url: '', shown: 'desktop' });
    expect(parseNotifyEntry('env:SLACK_WEBHOOK')).toEqual({ ok: true, envName: 'SLACK_WEBHOOK' });
  });

  it('is refused when malformed, saying why without the secret parts', () => {
    const reasons = [
      'ftp://example.com/SECRETPATH',
      'teams+https://example.com/SECRETPATH',
      'example.com/SECRETPATH',
      'env:9-no',
      'env:',
    ].map((entry) => parseNotifyEntry(entry));
    expect(reasons.map((r) => r.ok)).toEqual([false, false, false, false, false]);
    const words = reasons.map((r) => (r.ok ? '' : r.reason));
    expect(words[0]).toBe('ftp://example.com/… is not an http or https URL');
    expect(words[1]).toBe('teams+https://example.com/… has an unknown prefix teams+ (known: slack+, ntfy+, json+)');
    expect(words[2]).toBe('…(set, 22 chars) is not a URL');
    for (const reason of words) expect(reason).not.toContain('SECRETPATH');
  });

  it(
    'env:NAME is read from the environment: unset is returned to be warned of, ' +
      'a bad value is an error naming the variable',
    () => {
      const entries = [
        { entry: 'env:HOOK', where: '--notify' },
        { entry: 'env:GONE', where: 'supervisor.notify[1]' },
      ];
      expect(resolveTargets(entries, { HOOK: 'https://ntfy.sh/t' })).toEqual({
        targets: [{ ...target('https://ntfy.sh/t'), where: '--notify, env:HOOK' }],
        unset: [{ name: 'GONE', where: 'supervisor.notify[1]' }],
      });
      expect(() => resolveTargets(entries, { HOOK: 'ftp://x/SECRET' })).toThrow(
        new RegExp(
          String.raw`^--notify: the variable HOOK holds no usable target \(ftp:\/\/x\/… is not an http or ` +
            String.raw`https URL\)\. Set it to `,
        ),
      );
      expect(unsetNotifyVariables(['env:HOOK', 'env:GONE', 'desktop', 5], { HOOK: 'x' })).toEqual(['GONE']);
      expect(
        describeTargets(['env:HOOK', 'env:GONE', 'https://hooks.slack.com/services/T/B/X'], {
          HOOK: 'https://ntfy.sh/secret-topic',
        }),
      ).toEqual([
        'env:HOOK → https://ntfy.sh/… (ntfy)',
        'env:GONE (not set: nothing is sent)',
        'https://hooks.slack.com/… (slack)',
      ]);
    },
  );

  it(
    "supervisor.notify and notify_wait: defaults, --notify added after the board's, " +
      'a bad entry or duration an error',
    () => {
      expect(notifySettings({}, {})).toEqual({ notify: [], notifyWaitMs: 15 * 60_000 });
      expect(notifySettings({ notify: ['desktop'], notify_wait: '1h' }, { notify: ['https://ntfy.sh/t'] })).toEqual({
        notify: ['desktop', 'https://ntfy.sh/t'],
        notifyWaitMs: 3_600_000,
      });
      expect(() => notifySettings({ notify: ['desktop', 'htp:/x/SECRET'] }, {})).toThrow(
        /^kanban\.yaml: supervisor\.notify\[1\]: …\(set, 13 chars\) is not an http or https URL\. Write /,
      );
      expect(() => notifySettings({ notify_wait: 'soon' }, {})).toThrow(
        'kanban.yaml: supervisor.notify_wait must be a duration like 90s, 20m or 1h30m (got "soon").',
      );
    },
  );
});

describe('a notice', () => {
  it("of a run's end carries the printed line, the exit code and what to do next from the outcome table", () => {
    const notice = endNotice(
      { kind: 'retries_exhausted', exitCode: 3 },
      'kanban-supervisor: Implementor gave no valid reply.',
      AT,
    );
    expect(notice).toEqual({
      event: 'run_ended',
      board: AT.file,
      task: AT.task,
      run: AT.run,
      time: '2026-11-26T01:30:00.000Z',
      outcome: 'retries_exhausted',
      exitCode: 3,
      message: 'kanban-supervisor: Implementor gave no valid reply.',
      next: 'Fix the agent or its role file, then run again.',
      title: 'night: retries exhausted (exit 3)',
    });
    expect(endNotice({ kind: 'done', exitCode: 0 }, 'Done.', AT).next).toBe('See the message.');
  });

  it('of a usage-limit wait only when it is longer than the threshold', () => {
    const event = testEvent('limit_wait', {
      step: 1,
      role: 'Implementor',
      task: 'tasks/001.md',
      cli: 'claude',
      waitMs: 20 * 60_000,
      until: '2026-11-26T01:50:00Z',
      reason: 'limited',
      resetKnown: true,
    });
    expect(limitWaitNotice(event, 20 * 60_000, AT)).toBeUndefined();
    const notice = limitWaitNotice(event, 15 * 60_000, AT);
    expect(notice).toMatchObject({
      event: 'limit_wait',
      outcome: null,
      exitCode: null,
      message: expect.stringMatching(
        /^Implementor's claude usage limit: waiting until \d\d:50 \(20m00s\), nothing to do\.$/,
      ),
    });
  });

  it('of a --watch wait names the outcome it waits on and how it carries on', () => {
    const notice = waitingNotice(
      testEvent('waiting', {
        for: 'board_change',
        outcome: 'guard_stop',
        exitCode: 5,
        reason: 'Stopped after max_steps (3) steps.',
        since: 'x',
        pid: 1,
        watching: 2,
        via: 'fs.watch',
      }),
      AT,
    );
    expect(notice).toMatchObject({
      event: 'waiting',
      outcome: 'guard_stop',
      exitCode: 5,
      message: 'Waiting (--watch): Stopped after max_steps (3) steps.',
      title: 'night: stopped by a guard, waiting for a person',
    });
    expect(notice.next).toMatch(/carries on once an edit of the board validates\.$/);
  });

  it('is sent as Slack {text}, as ntfy text with ASCII headers, or as the notice itself', () => {
    const notice = endNotice(
      { kind: 'halted_for_human', exitCode: 4 },
      'kanban-supervisor: The Manager halted — ask.',
      AT,
    );
    const slack = requestFor(target('https://hooks.slack.com/services/T/B/X'), notice);
    expect(JSON.parse(slack.body)).toEqual({
      text: expect.stringMatching(
        new RegExp(
          String.raw`^kanban-supervisor: night: halted for a person \(exit 4\)\n` +
            String.raw`kanban-supervisor: The Manager halted — ask\.\n` +
            String.raw`Board: \/boards\/night\/kanban\.yaml · task: tasks\/002\.md · exit 4\nNext: Answer it`,
        ),
      ),
    });
    const ntfy = requestFor(target('https://ntfy.sh/t'), { ...notice, title: 'night — halted' });
    expect(ntfy.headers).toEqual({
      'content-type': 'text/plain; charset=utf-8',
      title: 'kanban-supervisor: night ? halted',
      priority: 'high',
      tags: 'warning',
    });
    expect(ntfy.body.split('\n')[0]).toBe(notice.message);
    expect(JSON.parse(requestFor(target('https://example.com/h'), notice).body)).toEqual(notice);
  });

  it("keeps an agent's markup as text: no Slack mention or disguised link, no clickable link on the desktop", () => {
    const said = 'The Manager said: <!channel> @here & <https://evil.example/login|Click to re-authenticate>';
    const notice = endNotice({ kind: 'halted_for_human', exitCode: 4 }, said, AT);
    const text = (
      JSON.parse(requestFor(target('https://hooks.slack.com/services/T/B/X'), notice).body) as { text: string }
    ).text;
    expect(text).toContain(
      'The Manager said: &lt;!channel&gt; @\u2060here &amp; &lt;https://evil.example/login|Click to ' +
        're-authenticate&gt;',
    );
    expect(text).not.toMatch(/[<>]|@here/);
    expect(desktopArgv('linux', notice)?.[4]).toMatch(
      /^The Manager said: &lt;!channel&gt; @\u2060here &amp; &lt;https/,
    );
    // Plain-text receivers get the words as written.
    expect(requestFor(target('https://ntfy.sh/t'), notice).body.split('\n')[0]).toBe(said);
    expect((JSON.parse(requestFor(target('https://example.com/h'), notice).body) as Notice).message).toBe(said);
  });

  it('on the desktop is notify-send on Linux, osascript on macOS (quotes escaped), nothing on Windows', () => {
    const notice = endNotice({ kind: 'done', exitCode: 0 }, 'Done: "all" \\ ok', AT);
    expect(desktopArgv('linux', notice)?.slice(0, 4)).toEqual([
      'notify-send',
      '--app-name=kanban-supervisor',
      '--urgency=normal',
      'kanban-supervisor: night: done (exit 0)',
    ]);
    expect(desktopArgv('darwin', notice)?.[2]).toMatch(
      new RegExp(
        String.raw`^display notification "Done: \\"all\\" \\\\ ok\n` +
          String.raw`Board: [\s\S]*" with title "kanban-supervisor: night: done \(exit 0\)"$`,
      ),
    );
    expect(desktopArgv('win32', notice)).toBeUndefined();
  });
});

describe('a switch of agents (fallback:), as a notification', () => {
  const START = Date.UTC(2026, 0, 31, 21, 0, 0);
  const switched: EventOf<'agent_switched'> = {
    time: new Date(START).toISOString(),
    type: 'agent_switched',
    run: 'r1',
    step: 2,
    role: 'Implementor',
    task: 'tasks/002.md',
    from: 'roles/implementor.md',
    to: 'roles/implementor-codex.md',
    reason: 'usage_limit',
    cli: 'claude',
    until: new Date(START + 3_600_000).toISOString(),
  };
  const at = { file: '/b/kanban.yaml', task: 'tasks/002.md', run: 'r1', time: new Date(START) };

  it('is told each way', () => {
    expect(agentSwitchedNotice(switched, at)).toMatchObject({
      event: 'agent_switched',
      exitCode: null,
      message: expect.stringMatching(
        /^roles\/implementor\.md is limited until .* \(claude\); roles\/implementor-codex\.md takes Implementor's steps meanwhile/,
      ),
      title: 'b: Implementor now runs roles/implementor-codex.md',
    });
    const back: EventOf<'agent_switched'> = {
      ...switched,
      from: switched.to,
      to: switched.from,
      reason: 'reset',
      cli: undefined,
      until: undefined,
    };
    expect(agentSwitchedNotice(back, at).message).toBe(
      "The usage limit is over; roles/implementor.md takes Implementor's steps again.",
    );
  });
});
