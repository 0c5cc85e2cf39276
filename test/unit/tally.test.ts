import { describe, expect, it } from 'vitest';
import { StepNumbers } from '../../src/loop/loop.js';
import { RunTally } from '../../src/periodic/tally.js';

describe('the periodic count of a run', () => {
  it(
    'makes a role with every: 2 due after the 2nd, 4th and 6th completed steps of six, ' +
      'with the tasks done since its last run',
    () => {
      const tally = new RunTally();
      const periodic = [{ role: 'Reviewer', every: 2 }];
      const due: Array<[number, string[]]> = [];
      for (let i = 1; i <= 6; i++) {
        const task = `tasks/00${i}.md`;
        if (tally.stepCompleted(task, periodic).some((p) => p.role === 'Reviewer'))
          due.push([i, tally.takeDone('Reviewer')]);
      }
      expect(due).toEqual([
        [2, ['tasks/001.md', 'tasks/002.md']],
        [4, ['tasks/003.md', 'tasks/004.md']],
        [6, ['tasks/005.md', 'tasks/006.md']],
      ]);
    },
  );

  it(
    'returns several due roles in the order listed, each with its own list of done tasks, ' +
      'a task repeated listed once',
    () => {
      const tally = new RunTally();
      const periodic = [
        { role: 'Style', every: 3 },
        { role: 'Design', every: 2 },
      ];
      expect(tally.stepCompleted('a.md', periodic)).toEqual([]);
      expect(tally.stepCompleted('b.md', periodic).map((p) => p.role)).toEqual(['Design']);
      expect(tally.takeDone('Design')).toEqual(['a.md', 'b.md']);
      expect(tally.stepCompleted('b.md', periodic).map((p) => p.role)).toEqual(['Style']);
      expect(tally.takeDone('Style')).toEqual(['a.md', 'b.md']);
      expect(tally.stepCompleted('c.md', periodic).map((p) => p.role)).toEqual(['Design']);
      expect(tally.stepCompleted('d.md', periodic)).toEqual([]);
      expect(tally.stepCompleted('e.md', periodic).map((p) => p.role)).toEqual(['Style', 'Design']);
      expect(tally.takeDone('Design')).toEqual(['b.md', 'c.md', 'd.md', 'e.md']);
      expect(tally.takeDone('Design')).toEqual([]);
    },
  );

  it('numbers task steps and periodic steps in one sequence', () => {
    const tally = new StepNumbers();
    expect([tally.nextStep(), tally.nextStep(), tally.nextStep()]).toEqual([1, 2, 3]);
  });
});
