#!/usr/bin/env node
// Install the pinned agent CLIs of the opt-in suite (`npm install --prefix test/clis`, from its
// lock file) unless every one is already installed at its pinned version (1.6 GB). Not `npm ci`:
// the lock holds only the platform packages the registry resolves here (opencode and Kilo list one
// per platform as optional dependencies), and npm ci refuses a lock without all of them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const wanted = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).devDependencies;

function installed(name) {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

const stale = Object.entries(wanted).filter(([name, version]) => installed(name) !== version);
if (stale.length > 0) {
  console.log(`test/clis: installing ${stale.map(([name, version]) => `${name}@${version}`).join(', ')} (npm install --prefix test/clis)`);
  const result = spawnSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
