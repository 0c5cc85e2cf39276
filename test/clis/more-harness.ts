import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../helpers.js';
import type { ToolModelRequest, ToolTurn } from '../fixtures/fake-model-tools.mjs';
import { CLI_BIN, initBoard, scriptedModel, type MoreCli, type SeenPrompt } from './harness.js';

/** The model the fake server stands in for, as each CLI's provider setting names it. */
const MODEL = 'claude-sonnet-4.5';

/**
 * A clean environment (nothing inherited) and a fresh HOME in which one of opencode, Copilot CLI
 * and Kilo Code CLI reaches the fake model server on `url` as its provider, configured as
 * docs/agent-clis-more.md tells a user to: opencode and Kilo through a provider block in their
 * config file (an Anthropic-API provider whose key comes from FAKE_MODEL_KEY), Copilot through its
 * bring-your-own-model variables. `key: false` leaves the key out.
 */
export function moreEnv(cli: MoreCli, url: string, options: { key?: boolean } = {}): Record<string, string> {
  const home = tempDir('ks-home-');
  mkdirSync(path.join(home, 'tmp'));
  const env: Record<string, string> = {
    PATH: [CLI_BIN, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    HOME: home,
    TMPDIR: path.join(home, 'tmp'),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
  };
  const key = options.key ?? true;
  if (cli === 'copilot') {
    // Offline: no GitHub login, telemetry or update check; only the provider is asked.
    Object.assign(env, {
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_TYPE: 'anthropic',
      COPILOT_PROVIDER_BASE_URL: url,
      COPILOT_MODEL: MODEL,
    });
    if (key) env.COPILOT_PROVIDER_API_KEY = 'sk-fake';
    return env;
  }
  const config = path.join(home, '.config', cli);
  mkdirSync(config, { recursive: true });
  writeFileSync(
    path.join(config, `${cli}.json`),
    JSON.stringify({
      model: `fake/${MODEL}`,
      // Only this provider: Kilo would otherwise fetch its own gateway's model list.
      enabled_providers: ['fake'],
      autoupdate: false,
      share: 'disabled',
      provider: {
        fake: {
          npm: '@ai-sdk/anthropic',
          name: 'Fake model server',
          options: { baseURL: `${url}/v1`, apiKey: '{env:FAKE_MODEL_KEY}' },
          models: { [MODEL]: { name: 'Fake' } },
        },
      },
    }),
  );
  // Offline: no model catalogue from models.dev, no telemetry, and the plugin package each
  // installs into its config folder asked of the fake server (a 404), not of the npm registry.
  Object.assign(
    env,
    cli === 'opencode'
      ? { OPENCODE_DISABLE_MODELS_FETCH: '1' }
      : { KILO_DISABLE_MODELS_FETCH: '1', KILO_TELEMETRY_LEVEL: 'off' },
    { npm_config_registry: `${url}/npm/` },
  );
  if (key) env.FAKE_MODEL_KEY = 'sk-fake';
  return env;
}

/**
 * A board as a user makes one for these CLIs: `init` (with a second task, for the Architect),
 * then the three role files of presets/<cli>/ in roles/.
 */
export async function moreBoard(cli: MoreCli, env: Record<string, string>): Promise<string> {
  const dir = await initBoard('claude', env);
  for (const role of ['implementor', 'architect', 'manager'])
    copyFileSync(path.join(ROOT, 'presets', cli, `${role}.md`), path.join(dir, 'roles', `${role}.md`));
  return dir;
}

// Each CLI's own file-writing tool and its arguments.
const WRITE: Record<MoreCli, (file: string, content: string) => ToolTurn['tool']> = {
  opencode: (file, content) => ({ name: 'write', input: { filePath: file, content } }),
  kilo: (file, content) => ({ name: 'write', input: { filePath: file, content } }),
  copilot: (file, content) => ({ name: 'create', input: { path: file, file_text: content } }),
};

// Where each CLI would load code and settings of the board folder's from on its next run.
const OWN_FILES: Record<MoreCli, string | undefined> = {
  opencode: '.opencode/plugin/planted.js',
  kilo: '.kilo/plugin/planted.js',
  copilot: undefined,
};

/**
 * The scripted model of harness.ts (scriptedModel) as the tool server's turns, its file write
 * made with this CLI's own tool; the Manager answers with bare JSON, no ```json fence. Before
 * that write, opencode's and Kilo's Implementor first tries to plant a plugin in the board folder
 * (OWN_FILES); what the CLI's tool said to it goes to `board.planted`.
 */
export function moreModel(
  cli: MoreCli,
  seen: SeenPrompt[],
  board: { dir?: string; planted?: string },
): (request: ToolModelRequest) => string | ToolTurn {
  const scripted = scriptedModel(seen, board);
  let held: ToolTurn | undefined;
  return ({ body, index, toolResult }) => {
    const turn = scripted({
      vendor: 'anthropic',
      path: '/v1/messages',
      body,
      index,
      ...(toolResult !== undefined && { toolResult }),
    });
    if (held) {
      const write = held;
      held = undefined;
      board.planted = toolResult;
      return write;
    }
    if (typeof turn !== 'string') {
      const write: ToolTurn = { tool: WRITE[cli](turn.write.file, turn.write.content) };
      const own = OWN_FILES[cli];
      if (!own || !board.dir) return write;
      held = write;
      return { tool: WRITE[cli](path.join(board.dir, own), 'export const planted = async () => ({});\n') };
    }
    return seen.at(-1)?.role === 'Manager' ? (/```json\n(.*)\n```/s.exec(turn)?.[1] ?? turn) : turn;
  };
}

/** The file moreModel has opencode's and Kilo's Implementor try to plant in the board folder. */
export function plantedFile(cli: MoreCli): string | undefined {
  return OWN_FILES[cli];
}

/** The prompt as the model got it: Copilot puts the date and time before it, and drops its final newline. */
export function promptSent(cli: MoreCli, prompt: string): string {
  return (
    cli === 'copilot' ? prompt.replace(/^<current_datetime>[^<]*<\/current_datetime>\n\n/, '') : prompt
  ).trimEnd();
}
