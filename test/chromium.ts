import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers.js';

// Where Chromium is found when $CHROMIUM is not set: Debian/Ubuntu packages, then Google Chrome.
const PLACES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];
// The devDependency that ships a headless Chromium for Linux x64 inside its npm package.
const PACKAGE = path.join(ROOT, 'node_modules', '@sparticuz', 'chromium');

/** A Chromium to drive headless: its program, and the environment it needs beside ours. */
export interface Chromium {
  executablePath: string;
  env: Record<string, string>;
}

/**
 * The Chromium the report test drives headless: $CHROMIUM, else one installed in a usual place,
 * else (Linux x64) the one the @sparticuz/chromium devDependency ships, so that `npm test` needs
 * nothing installed by hand. Throws how to get one.
 */
export function findChromium(places = PLACES): Chromium {
  const chosen = process.env.CHROMIUM;
  if (chosen) {
    if (!existsSync(chosen))
      throw new Error(`CHROMIUM=${chosen} does not exist. Point it at a Chromium or Chrome program, or unset it.`);
    return { executablePath: chosen, env: {} };
  }
  const found = places.find((place) => existsSync(place));
  if (found) return { executablePath: found, env: {} };
  if (process.platform === 'linux' && process.arch === 'x64' && existsSync(PACKAGE)) return packaged();
  throw new Error(
    `The report test needs Chromium and found none (looked at ${places.join(', ')}; ` +
      `the @sparticuz/chromium devDependency is for Linux x64). Install it (Debian/Ubuntu: ` +
      `sudo apt-get install chromium), or set CHROMIUM=/path/to/chrome.`,
  );
}

/**
 * The packaged Chromium, unpacked once (200 MB, a second or two) into node_modules/.cache, not
 * the temp folder: tests leave nothing there, and the next run finds it. It brings the NSS
 * libraries and a font, which a machine without Chromium lacks.
 */
function packaged(): Chromium {
  const { version } = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { version: string };
  const cache = path.join(ROOT, 'node_modules', '.cache');
  const dir = path.join(cache, `chromium-${version}`);
  if (!existsSync(dir)) {
    mkdirSync(cache, { recursive: true });
    const staging = mkdtempSync(path.join(cache, 'chromium-unpacking-'));
    try {
      // The package unpacks into the temp folder it finds: here, the staging folder.
      const files = ['chromium.br', 'al2023.tar.br', 'fonts.tar.br'].map((name) => path.join(PACKAGE, 'bin', name));
      const unpack =
        "import { inflate } from '@sparticuz/chromium'; for (const f of process.argv.slice(1)) await inflate(f);";
      execFileSync(process.execPath, ['--input-type=module', '-e', unpack, ...files], {
        cwd: ROOT,
        env: { ...process.env, TMPDIR: staging },
        stdio: 'inherit',
      });
      writeFileSync(
        path.join(staging, 'fonts.conf'),
        `<?xml version="1.0"?>\n<fontconfig><dir>${dir}/fonts/fonts</dir><dir>/usr/share/fonts</dir><cachedir>` +
          `${dir}/fontconfig-cache</cachedir></fontconfig>\n`,
      );
      renameSync(staging, dir);
    } catch (error) {
      if (!existsSync(dir)) throw error; // else another run unpacked it first
    } finally {
      rmSync(staging, { recursive: true, force: true }); // gone already after the rename
    }
  }
  const libraries = [path.join(dir, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return {
    executablePath: path.join(dir, 'chromium'),
    env: { LD_LIBRARY_PATH: libraries, FONTCONFIG_FILE: path.join(dir, 'fonts.conf') },
  };
}
