import { describe, expect, it } from 'vitest';
import { locateBoard } from '../../src/board/locate.js';

describe('a run with no board named and none in its folder', () => {
  it('in the container image, says how to mount the board at /board', () => {
    expect(() => locateBoard(undefined, '/board', { KANBAN_SUPERVISOR_IMAGE: 'kanban-supervisor' })).toThrow(
      "there is no kanban.yaml in /board: mount your board's folder there. " +
        'In that folder: docker run --rm -v "$PWD:/board" kanban-supervisor',
    );
  });

  it('anywhere else, says to name a board or create one, even in a folder called /board', () => {
    expect(() => locateBoard(undefined, '/board', {})).toThrow(
      /^there is no kanban\.yaml in this folder \(\/board\)\. Pass/,
    );
  });
});
