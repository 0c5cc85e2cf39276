import {
  agentSwitchedNotice,
  endNotice,
  limitWaitNotice,
  setAsideNotice,
  waitingNotice,
  type Notice,
} from './notice.js';
import { deliver, REAL_SEND, SEND_POLICY, type SendDeps, type SendPolicy } from './send.js';
import type { NotifyTarget } from './target.js';
import type { OutcomeKind } from '../errors.js';
import type { SupervisorEvent } from '../event-types.js';

/** What a notifier is told about its run and how it tells of a failed delivery. */
export interface NotifierOptions {
  /** kanban.yaml, absolute. */
  file: string;
  /** A usage-limit wait longer than this is told (`supervisor.notify_wait`). */
  waitThresholdMs: number;
  /** Told once per failed delivery (the URL masked), and once if the desktop has no notifier. */
  warn: (message: string) => void;
  now?: () => Date;
  deps?: SendDeps;
  policy?: SendPolicy;
}

/**
 * How long the end of a run waits in all for its notifications
 * (SEND_POLICY's tries fit in it but for a receiver that never answers).
 */
export const FLUSH_CAP_MS = 10_000;
/** The same after a signal or the time limit stopped the run: such a stop ends well inside `docker stop`'s 10 s. */
export const STOPPED_CAP_MS = 2_000;

const TOLD: Record<Notice['event'], string> = {
  run_ended: "run's end",
  limit_wait: 'usage-limit wait',
  waiting: 'wait for a person',
  agent_switched: 'switch to or from a fallback agent',
  set_aside: 'task set aside',
};

/**
 * The run's notifications (SPEC §5c, "Heard"): mid-run ones are sent as their events come and
 * never awaited; the run's end waits for every pending one, but no longer than a cap, then gives
 * them up. A failed delivery is a warning; nothing here changes how the run ends.
 */
export class Notifier {
  private readonly pending = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private readonly now: () => Date;
  private run = '';
  private task = '';
  private lastWait: unknown;
  private toldMissing = false;
  /** When the run's end was told (performance.now()), and how long it may wait from then. */
  private ended: { at: number; capMs: number } | undefined;

  constructor(
    readonly targets: readonly NotifyTarget[],
    private readonly options: NotifierOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * The event listener of a run: keeps the run and task, and tells of a long usage-limit wait,
   * a switch to or from a fallback agent, a task the Manager set aside, and a resident run's wait for a person.
   */
  readonly listener = (event: SupervisorEvent): void => {
    if (event.type === 'run_started') this.run = event.run;
    if (event.type === 'step_started') this.task = event.task;
    if (event.type === 'limit_wait') {
      const notice = limitWaitNotice(event, this.options.waitThresholdMs, this.place(event));
      if (notice) this.send(notice);
    }
    if (event.type === 'agent_switched') this.send(agentSwitchedNotice(event, this.place(event)));
    if (event.type === 'board_written') {
      const notice = setAsideNotice(event, this.place(event));
      if (notice) this.send(notice);
    }
    // One notice a wait: the event comes again only when the way of watching changes (fs.watch failing).
    if (event.type === 'waiting' && event.since !== this.lastWait) {
      this.lastWait = event.since;
      this.send(waitingNotice(event, this.place(event)));
    }
  };

  /** Tell of the run's end: `line` is its outcome as printed; `at` where it stood (the last task, its run id). */
  end(
    outcome: { kind: OutcomeKind; exitCode: number },
    line: string,
    at: { file: string; task: string; run: string },
  ): void {
    const stopped = outcome.kind === 'interrupted' || outcome.kind === 'time_limit';
    this.ended = { at: performance.now(), capMs: stopped ? STOPPED_CAP_MS : FLUSH_CAP_MS };
    this.send(
      endNotice(outcome, line, {
        file: at.file,
        task: at.task || this.task,
        run: at.run || this.run,
        time: this.now(),
      }),
    );
  }

  /**
   * Wait for every pending delivery, at most `capMs` from the run's end (FLUSH_CAP_MS, or
   * STOPPED_CAP_MS after a stop; a hook run meanwhile counts in it); then give the rest up (their
   * warnings are told).
   */
  async flush(capMs = this.ended?.capMs ?? FLUSH_CAP_MS): Promise<void> {
    if (this.pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const left = capMs - (this.ended ? performance.now() - this.ended.at : 0);
    const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, left))));
    await Promise.race([Promise.all([...this.pending]), cap]);
    clearTimeout(timer);
    this.stop.abort();
    // Aborted, each settles at once (fetch and the pauses listen to the signal).
    await Promise.all([...this.pending]);
  }

  private send(notice: Notice): void {
    for (const target of this.targets) {
      const sending: Promise<void> = deliver(
        target,
        notice,
        this.stop.signal,
        this.options.deps ?? REAL_SEND,
        this.options.policy ?? SEND_POLICY,
      )
        .then((failed) => this.failed(target, notice, failed))
        .finally(() => this.pending.delete(sending));
      this.pending.add(sending);
    }
  }

  private failed(target: NotifyTarget, notice: Notice, why: string | undefined): void {
    if (why === undefined) return;
    if (why === 'missing') {
      if (this.toldMissing) return;
      this.toldMissing = true;
      this.options.warn(
        'desktop notifications need notify-send (Debian/Ubuntu: apt-get install libnotify-bin) ' +
          'or, on macOS, osascript; none is installed, so none is shown.',
      );
      return;
    }
    const entry = target.where ? `, ${target.where}` : '';
    this.options.warn(
      `the ${TOLD[notice.event]} could not be told to ${target.shown} (${target.format}${entry}): ${why}. ` +
        `The run's exit code is unchanged.`,
    );
  }

  private place(event: SupervisorEvent): { file: string; task: string; run: string; time: Date } {
    return {
      file: this.options.file,
      task: 'task' in event && event.task !== undefined ? event.task : this.task,
      run: event.run,
      time: this.now(),
    };
  }
}
