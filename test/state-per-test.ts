import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach } from 'vitest';

// Usage limits are shared by account through the user's state folder (src/limits/): each test
// gets a folder of its own, which the supervisors it runs inherit, so that no test waits for a
// limit another one learnt and none writes to the real ~/.local/state.
beforeEach(() => {
  process.env.XDG_STATE_HOME = mkdtempSync(path.join(os.tmpdir(), 'ks-state-'));
});
