import { fallbackChain } from '../board/fallback-chain.js';
import { readRole, roleFilePath } from '../board/role.js';
import { sameRole } from '../board/role-names.js';
import { limitSettings, type LimitSettings } from './settings.js';
import type { AgentChoice, CapabilityRun } from '../loop/context.js';
import { localClock } from '../util/time.js';
import type { LimitWaits, Wait, WaitPlace } from './limit-wait.js';
import { lookForSharedLimit, sharedAccountOf, type SharedAccount } from './shared.js';

/** Why an agent of a chain cannot be called now: until when, and whether this run learnt it from its CLI. */
interface Limited {
  until: number;
  cli: string;
  /** Learnt from the CLI in this run (a wait for it is this run's); else another supervisor's shared entry. */
  own?: Wait;
}

/**
 * Fallback agents (SPEC §5c): while a role's CLI account waits out a usage limit, the roles its
 * `fallback:` names take its steps, in order; the run waits only when every agent of the chain is
 * limited, and then only until the first of them may be called again. The role's own agent takes
 * its steps again once its limit is over. Each switch is an `agent_switched` event and a Log entry.
 */
export class FallbackAgents {
  /** What this run learnt from each agent's CLI (by lower-case role file name). */
  private readonly learnt = new Map<string, Wait>();
  /** The agent that took each role's last attempt (by lower-case role name), to tell a switch once. */
  private readonly current = new Map<string, string>();

  constructor(
    private readonly ctx: CapabilityRun,
    private readonly waits: LimitWaits,
  ) {}

  /** Whether the role has fallbacks: its limits are then the chain's to decide. */
  has(role: string): boolean {
    return fallbackChain(this.ctx.board.dir, role).length > 1;
  }

  /** A limit the CLI of `agent` (a role file's name) reported: no agent of a chain calls it before `wait.until`. */
  limited(agent: string, wait: Wait): void {
    this.learnt.set(agent.toLowerCase(), wait);
  }

  /**
   * The agent to run the role's next attempt: the first of its chain not limited now, else — every
   * one limited — the one whose limit ends first, waited for here when this run learnt it (a
   * shared entry is waited for before the attempt, as for any agent). Undefined: the role's own.
   */
  async choose(choice: AgentChoice): Promise<string | undefined> {
    const { ctx } = this;
    const chain = fallbackChain(ctx.board.dir, choice.role);
    if (chain.length === 1) return undefined;
    const now = ctx.world.clock.now().getTime();
    const limits = chain.map((name) => ({
      name,
      limit: this.limitOf(name, limitSettings(choice.settings.supervisor), now),
    }));
    let pick = limits.find(({ limit }) => limit === undefined);
    if (!pick) {
      const first = limits.reduce((a, b) => ((b.limit?.until ?? 0) < (a.limit?.until ?? 0) ? b : a));
      const own = first.limit?.own;
      if (own) {
        const others = limits.map(({ name, limit }) => `${roleFilePath(name)} until ${clockOf(limit?.until)}`);
        await this.waits.waitOut(limitSettings(choice.settings.supervisor), placeOf(choice), {
          ...own,
          now,
          reason: `every agent of ${choice.role}'s fallback chain is limited (${others.join(', ')}): ${own.reason}`,
        });
        this.learnt.delete(first.name.toLowerCase());
      }
      pick = first;
    }
    this.tell(choice, pick.name, limits, ctx.world.clock.now().getTime());
    return sameRole(pick.name, choice.role) ? undefined : pick.name;
  }

  // Until when an agent may not be called: its CLI's limit learnt in this run, or its account's shared entry.
  private limitOf(name: string, settings: LimitSettings, now: number): Limited | undefined {
    const own = this.learnt.get(name.toLowerCase());
    if (own && own.until > now) return { until: own.until, cli: own.cli, own };
    const shared = this.sharedOf(name, settings);
    const entry = shared && lookForSharedLimit(shared, now, this.ctx.board.file).limit;
    return entry ? { until: entry.until, cli: entry.entry.cli } : undefined;
  }

  // The account a role file's agent runs as, as its invocation would give it (limits/shared.ts).
  private sharedOf(name: string, settings: LimitSettings): SharedAccount | undefined {
    const role = readRole(this.ctx.board.dir, name).role;
    const [file, ...args] = role?.command ?? [];
    if (!role || file === undefined) return undefined;
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.ctx.world.env)) if (value !== undefined) env[key] = value;
    Object.assign(env, role.env);
    const { dir } = this.ctx.board;
    return sharedAccountOf({ file, args, env, cwd: dir }, settings, dir, this.ctx.world.env);
  }

  // A switch from the agent of the role's last attempt to `to`: its event and its Log entry.
  private tell(
    choice: AgentChoice,
    to: string,
    limits: Array<{ name: string; limit: Limited | undefined }>,
    now: number,
  ): void {
    const key = choice.role.toLowerCase();
    const from = this.current.get(key) ?? limits[0]?.name ?? choice.role;
    this.current.set(key, to);
    if (sameRole(from, to)) return;
    const at = (agent: string) => limits.findIndex(({ name }) => sameRole(name, agent));
    // Down the chain: the agent before is limited; back up it: the one now chosen is free again.
    const reason = at(to) > at(from) ? 'usage_limit' : 'reset';
    const was = limits[at(from)]?.limit;
    const toFile = roleFilePath(to);
    const fromFile = roleFilePath(from);
    const until = was && was.until > now ? new Date(was.until).toISOString() : undefined;
    this.ctx.events.emit('agent_switched', {
      ...placeOf(choice),
      from: fromFile,
      to: toFile,
      reason,
      ...(was && until && { cli: was.cli, until }),
    });
    this.ctx.world.log({
      kind: 'Fallback',
      agent: choice.role,
      task: choice.task,
      issue:
        reason === 'usage_limit'
          ? `Usage limit (${was?.cli ?? 'its CLI'}) of ${fromFile} until ${until ?? '?'}`
          : `The usage limit of ${toFile} is over`,
      action:
        reason === 'usage_limit'
          ? `${toFile} takes ${choice.role}'s steps until then (fallback:); no retry is spent`
          : `${toFile} takes ${choice.role}'s steps again`,
    });
  }
}

function placeOf({ step, role, task }: AgentChoice): WaitPlace {
  return { step, role, task };
}

function clockOf(until: number | undefined): string {
  return until === undefined ? '?' : localClock(new Date(until).toISOString());
}
