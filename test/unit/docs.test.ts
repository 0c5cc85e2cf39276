import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

// The README a newcomer reads, the pages of docs/ and CONTRIBUTING.md: every link leads somewhere,
// and nothing the README once said was lost when the reference moved to docs/.
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

// Pages linked already that other branches are writing. Links to them are not checked while they
// are missing; once one is here, this test fails until it is taken off the list.
const PENDING: string[] = [];

// Each heading of the README as it was at ec17b5d (1,310 lines), and where it went: a page, and
// the heading (any level) on that page that holds it now.
const MOVED: [string, string, string][] = [
  ['kanban-supervisor', 'README.md', 'kanban-supervisor'],
  ['Install', 'README.md', 'Install'],
  ['Quick start', 'README.md', 'Quick start'],
  ['Answering a halted or blocked agent', 'README.md', 'When it stops for you'],
  ['What `phase` does', 'docs/board.md', 'What `phase` does'],
  ['The shipped reference agents', 'docs/board.md', 'The shipped reference agents'],
  ['A role that runs your own script', 'docs/board.md', 'A role that runs your own script'],
  ['What each role gets', 'docs/board.md', 'What each role gets'],
  ['The board', 'docs/board.md', 'The board: kanban.yaml, task files, role files'],
  ['kanban.yaml', 'docs/board.md', 'kanban.yaml'],
  ['Task files', 'docs/board.md', 'Task files'],
  ['Role files', 'docs/board.md', 'Role files'],
  ['The agent contract', 'docs/replies-and-retries.md', 'The agent contract'],
  ['Agent CLIs', 'docs/agent-clis.md', 'Agent CLIs'],
  ['Running off the laptop', 'docs/off-the-laptop.md', 'Running off the laptop'],
  ['The container image', 'docs/off-the-laptop.md', 'The container image'],
  ["A batch job's time budget (`--max-time`)", 'docs/off-the-laptop.md', "A batch job's time budget (`--max-time`)"],
  ['Recipes for schedulers', 'docs/off-the-laptop.md', 'Kubernetes'],
  ['Notifications', 'docs/notifications.md', 'Notifications'],
  ['Retries', 'docs/replies-and-retries.md', 'Retries'],
  ['Events', 'docs/events.md', 'Events'],
  ['Resident mode (`--watch`)', 'docs/shapes.md', 'Resident mode (`--watch`)'],
  ['Periodic roles', 'docs/shapes.md', 'Periodic roles'],
  ['Failures handed to the Manager', 'docs/shapes.md', 'Failures handed to the Manager'],
  ['History for the Manager', 'docs/shapes.md', 'History for the Manager'],
  [
    'One commit per step (`supervisor.git_commit`)',
    'docs/git-commits.md',
    'One commit per step (`supervisor.git_commit`)',
  ],
  ['Command line', 'docs/commands.md', 'Commands'],
  ['Exit codes', 'docs/exit-codes.md', 'Exit codes'],
  ['Sandbox', 'docs/sandbox.md', 'The fence (`sandbox:`) and secrets'],
  ['Safety', 'docs/safety.md', 'Safety: what the supervisor promises'],
  ['Benchmark', 'CONTRIBUTING.md', 'Benchmark'],
  ['Developing kanban-supervisor (in a clone of this repository)', 'CONTRIBUTING.md', 'Developing kanban-supervisor'],
  ['How the code is laid out', 'CONTRIBUTING.md', 'How the code is laid out'],
];

/** The lines outside fenced code blocks (a fence line holds no other backtick): a `#` or a link there is code. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*`{3,}[^`]*$/.test(line)) fenced = !fenced;
    else if (!fenced) return true;
    return false;
  });
}

const headings = (text: string) => proseLines(text).flatMap((line) => /^#{1,6} (.+)$/.exec(line)?.[1] ?? []);

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  return new Set(
    headings(text).map((heading) => {
      const slug = heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/ /g, '-');
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      return count ? `${slug}-${count}` : slug;
    }),
  );
}

/** The targets of a page's Markdown links, inline code aside. */
const links = (text: string) =>
  proseLines(text)
    .map((line) => line.replace(/`[^`]*`/g, ''))
    .flatMap((line) => [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string));

describe('the README and docs/', () => {
  it('the README is one a newcomer reads in five minutes: at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('every relative link leads to a file that exists, and a link to a heading to one of its headings', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const link of links(read(page))) {
        if (/^[a-z]+:/.test(link)) continue;
        const [file = '', anchor] = link.split('#');
        const target = file ? path.posix.normalize(path.posix.join(path.posix.dirname(page), file)) : page;
        if (PENDING.includes(target) && !existsSync(path.join(ROOT, target))) continue;
        if (!existsSync(path.join(ROOT, target))) broken.push(`${page}: ${link}: no such file`);
        else if (anchor && !anchors(read(target)).has(anchor)) broken.push(`${page}: ${link}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('a page another branch is writing is listed as pending only while it is missing', () => {
    expect(PENDING.filter((page) => existsSync(path.join(ROOT, page)))).toEqual([]);
  });

  it('every section of the README as it was at ec17b5d has a page with its heading, linked from the README', () => {
    const old = execFileSync('git', ['show', 'ec17b5d:README.md'], { cwd: ROOT, encoding: 'utf8' });
    expect(MOVED.map(([heading]) => heading)).toEqual(headings(old));
    const linked = new Set(links(read('README.md')).map((link) => link.split('#')[0]));
    const lost = MOVED.filter(([, page, heading]) => {
      if (PENDING.includes(page) && !existsSync(path.join(ROOT, page))) return false;
      return !headings(read(page)).includes(heading) || (page !== 'README.md' && !linked.has(page));
    });
    expect(lost).toEqual([]);
  });

  it('the events page has a row for every kind of event a run records', () => {
    // The core's kinds, and each capability's, merged into EventFields from its folder's events.ts.
    const files = ['src/event-types.ts', ...readdirSync(path.join(ROOT, 'src')).map((dir) => `src/${dir}/events.ts`)];
    const kinds = files
      .filter((file) => existsSync(path.join(ROOT, file)))
      .flatMap((file) => {
        const [, indent = '', fields = ''] =
          /^( *)(?:export )?interface EventFields \{\n([\s\S]*?)^\1\}/m.exec(read(file)) ?? [];
        return [...fields.matchAll(new RegExp(`^${indent} {2}(\\w+): `, 'gm'))].map((match) => match[1]);
      });
    expect(kinds.length).toBeGreaterThan(15);
    const rows = proseLines(read('docs/events.md')).filter((line) => line.startsWith('| `'));
    expect(kinds.filter((kind) => !rows.some((row) => row.split('|')[1]?.includes(`\`${kind}\``)))).toEqual([]);
  });

  it('CONTRIBUTING.md shows the set-up commands exactly as the README writes them', () => {
    const setup = /<!-- readme-setup: CI runs[^\n]*\n```sh\n([\s\S]*?)```/.exec(read('README.md'))?.[1] ?? '';
    expect(setup.trim().split('\n')).toHaveLength(2);
    expect(read('CONTRIBUTING.md')).toContain(setup);
  });
});
