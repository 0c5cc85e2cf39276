import path from 'node:path';
import { realBoardPath } from '../board/locate.js';
import { boardOf, readBoard, readBoardSeen, type Board, type WrittenText } from '../board/read-board.js';

/**
 * kanban.yaml as a run reads it: afresh at every step (SPEC §2), but a text the run itself read
 * or wrote last is not parsed again — on a board of thousands of tasks a parse is the bulk of a
 * step. The checks on task paths are made at every read either way.
 */
export class BoardSource {
  /** The board folder: every task, role and agent path is relative to it. */
  readonly dir: string;

  /** `file`: kanban.yaml's real, absolute path; `last`: its text and parse as the run's start read them. */
  constructor(
    readonly file: string,
    private last?: WrittenText,
  ) {
    this.dir = path.dirname(file);
  }

  /** A run's start: the board named `file` found by its real path (every name of it meets one lock), read once. */
  static open(file: string): { source: BoardSource; board: Board } {
    const real = realBoardPath(file);
    const seen = readBoardSeen(real);
    return { source: new BoardSource(real, seen), board: boardOf(real, seen.text, seen) };
  }

  /** The text last read or written, with its parse (validate's checks reuse it). */
  get seen(): WrittenText | undefined {
    return this.last;
  }

  /** The board as it is on disk now; any problem is an InputError (exit 2). */
  read(): Board {
    return readBoard(this.file, this.last);
  }

  /** The text the run has just written, with the parse that checked it. */
  wrote(text: WrittenText | undefined): void {
    if (text) this.last = text;
  }
}
