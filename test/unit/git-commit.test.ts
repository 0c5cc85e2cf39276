import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commitMessage, commitWarnings, type CommitAbout } from '../../src/git/message.js';
import { gitEnv, gitSaid, isRunOutput, parseStatus, pathList, shownPath } from '../../src/git/porcelain.js';

const about = (more: Partial<CommitAbout> = {}): CommitAbout => ({
  step: 3,
  runId: '2026-11-26T01-00-00-000Z-42',
  task: 'tasks/login.md',
  role: 'Implementor',
  reply: { status: 'ok', message: 'added the login form' },
  answer: { status: 'ok', message: 'next is the API', next_task: 'tasks/api.md', tasks: [] },
  next: 'tasks/api.md',
  ...more,
});

describe('git status --porcelain=v1 -z', () => {
  it(
    'lists every path once: modified, deleted, untracked, both paths of a rename, names with spaces, ' +
      'newlines and quotes',
    () => {
      const out = ' M src/a.ts\0D  gone.txt\0?? new dir/file "x".txt\0R  to.md\0from.md\0?? line\nbreak\0 M src/a.ts\0';
      expect(parseStatus(out)).toEqual([
        'src/a.ts',
        'gone.txt',
        'new dir/file "x".txt',
        'to.md',
        'from.md',
        'line\nbreak',
      ]);
      expect(parseStatus('')).toEqual([]);
    },
  );

  it('gives back exactly the paths it was given, whatever bytes they hold (property)', () => {
    const name = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\0'));
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.constantFrom(' M', 'M ', '??', 'A ', ' D', 'MM'), name), {
          selector: ([, n]) => n,
          maxLength: 8,
        }),
        (entries) => {
          const out = entries.map(([xy, n]) => `${xy} ${n}\0`).join('');
          expect(parseStatus(out)).toEqual(entries.map(([, n]) => n));
        },
      ),
    );
  });

  it('keeps a name that is not UTF-8 byte for byte from git’s output to its input', () => {
    const bytes = Buffer.from([0x66, 0xff, 0x2e, 0x74]); // f\xff.t
    const [file] = parseStatus(Buffer.concat([Buffer.from('?? '), bytes, Buffer.from([0])]).toString('latin1'));
    expect(pathList([file as string])).toEqual(Buffer.concat([bytes, Buffer.from([0])]));
    expect(shownPath('caf\u00c3\u00a9')).toBe('café');
  });
});

describe("the supervisor's own output is never committed", () => {
  it(
    'leaves out .kanban-supervisor/ and supervisor.log.md beside the board, at the top or in a subfolder, ' +
      'and nothing else',
    () => {
      expect(isRunOutput('.kanban-supervisor/events.jsonl', '')).toBe(true);
      expect(isRunOutput('supervisor.log.md', '')).toBe(true);
      expect(isRunOutput('board/.kanban-supervisor/runs/x.log', 'board')).toBe(true);
      expect(isRunOutput('board/supervisor.log.md', 'board')).toBe(true);
      expect(isRunOutput('supervisor.log.md', 'board')).toBe(false);
      expect(isRunOutput('board/docs/supervisor.log.md', 'board')).toBe(false);
      expect(isRunOutput('.kanban-supervisor-notes.md', '')).toBe(false);
      expect(isRunOutput('boarding/supervisor.log.md', 'board')).toBe(false);
    },
  );
});

describe("git's environment", () => {
  it('drops what points git at another repository or index, takes pathspecs literally and never prompts', () => {
    const env = gitEnv({
      PATH: '/bin',
      GIT_DIR: '/elsewhere/.git',
      GIT_WORK_TREE: '/elsewhere',
      GIT_INDEX_FILE: '/tmp/i',
      GIT_AUTHOR_NAME: 'A',
    });
    expect(env).toEqual({ PATH: '/bin', GIT_AUTHOR_NAME: 'A', GIT_TERMINAL_PROMPT: '0', GIT_LITERAL_PATHSPECS: '1' });
  });
});

describe("git's words in a message", () => {
  it('keeps the first lines, without hints, escapes or secrets', () => {
    const said = gitSaid(
      'hint: try this\n\x1b[31mlint failed\x1b[0m\nfile a.ts: token=sk-abcdefghijklmnopqrstuvwx\n\n',
      '',
    );
    expect(said).toBe(`lint failed / file a.ts: token=…(set, 27 chars)`);
    expect(gitSaid('', '')).toBe('(git said nothing)');
  });
});

describe('the commit message of a step', () => {
  it('names the task, role, status and reply’s message, then the Manager’s answer, next task, step and run', () => {
    expect(commitMessage(about())).toBe(
      'tasks/login.md: Implementor ok — added the login form\n\nManager: ok — next is the API\n' +
        'Next task: tasks/api.md\nStep: 3\nRun: 2026-11-26T01-00-00-000Z-42\n',
    );
  });

  it('says when the Manager did not answer ok, and keeps a long or many-line message whole in the body', () => {
    const long = `${'x'.repeat(150)}\nsecond line`;
    const message = commitMessage(
      about({
        reply: { status: 'blocked', message: long },
        answer: { status: 'escalate', message: 'need a person' },
        next: null,
      }),
    );
    const [subject, blank, ...body] = message.split('\n');
    expect(subject).toMatch(/^tasks\/login\.md: Implementor blocked — x+… \[Manager: escalate\]$/);
    expect([...(subject as string)].length).toBeLessThanOrEqual(100);
    expect(blank).toBe('');
    expect(body.join('\n')).toContain(long);
    expect(message).toContain('Manager: escalate — need a person\nNext task: none\n');
  });

  it(
    'cleans agent text: no control characters or escapes in the subject, secrets masked, ' +
      'and lists paths changed before the step',
    () => {
      const message = commitMessage(
        about({ reply: { status: 'ok', message: '\x1b]0;title\x07done\r\nwith key=sk-abcdefghijklmnopqrstuvwx' } }),
        ['notes.txt'],
      );
      expect(message.split('\n')[0]).toBe('tasks/login.md: Implementor ok — done');
      expect(message).not.toContain('sk-abcdefghijklmnopqrstuvwx');
      expect(message).not.toContain('\x1b');
      expect(message).toMatch(/had uncommitted changes before this step[^\n]*\n {2}notes\.txt\n$/);
    },
  );

  it('names each repository of its own the step made and left out, and a Warning says where it went', () => {
    const message = commitMessage(about(), [], ['vendor/lib/']);
    expect(message).toMatch(/\n\nLeft out of this commit: git repositories of their own[^\n]*\n {2}vendor\/lib\/\n$/);
    const [warning] = commitWarnings(about(), '0123456789abcdef', [], ['vendor/lib/']);
    expect(warning?.issue).toBe(
      'vendor/lib/: made during step 3, a git repository of its own that the repository does not know as a ' +
        "submodule, left out of commit 0123456789ab, since the supervisor's git does not look into it",
    );
    expect(warning?.action).toMatch(/^Left out; the commit message names it\. .*git submodule add/);
    expect(commitWarnings(about(), null, ['notes.txt'], ['x/'])).toEqual([
      expect.objectContaining({
        issue: expect.stringContaining("the step's commit (nothing else changed: no commit)"),
      }),
    ]);
  });
});
