import { afterEach, beforeEach } from 'vitest';
import { removeTempDirs, tempDir } from './helpers.js';

// Usage limits are shared by account through the user's state folder (src/limits/): each test
// gets a folder of its own, which the supervisors it runs inherit, so that no test waits for a
// limit another one learnt and none writes to the real ~/.local/state.
beforeEach(() => {
  process.env.XDG_STATE_HOME = tempDir('ks-state-');
});

// Here rather than in helpers.ts: a setup file runs for every test file, also when test files
// share their modules (the unit project runs without isolation), so every file removes its folders.
afterEach(removeTempDirs);
