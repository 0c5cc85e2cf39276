import { statSync } from 'node:fs';
import type { HostUser } from './fence.js';
import { reachable } from './place.js';
import { realOr } from '../util/real-path.js';

/**
 * Who a fenced agent is on the host, outside its namespace, when the supervisor runs as root:
 * the board folder's owner, never root. In bubblewrap's user namespace the agent is nobody, but
 * to the kernel it stays the user that started bubblewrap: started by root, every file it made
 * would be root's, and it would keep root's right, as owner, to read and write root's files.
 * So bubblewrap is started as the owner of the board folder (its group, or the owner's id as
 * group when the folder's group is root's), with no supplementary group; a board folder root
 * owns is refused, with the fix, rather than run as another, made-up user who could not write
 * it. Undefined when the supervisor is not root: the agent is the supervisor's own user.
 */
export function agentUser(boardDir: string, uid = process.getuid?.()): { user?: HostUser; problem?: string } {
  if (uid !== 0) return {};
  const owner = statSync(boardDir);
  if (owner.uid !== 0) {
    const user = { uid: owner.uid, gid: owner.gid === 0 ? owner.uid : owner.gid };
    if (reachable(realOr(boardDir), user)) return { user };
    return {
      problem:
        `sandbox: a fenced agent started by root runs as the board folder's owner (uid ${owner.uid}), and a folder ` +
        `above ${boardDir} is closed to that user. Open the folders above it to that user (chmod o+x), ` +
        `or move the board where its owner can reach it.`,
    };
  }
  return {
    problem:
      `sandbox: the board folder ${boardDir} belongs to root, and a fenced agent started by root runs as the ` +
      `board folder's owner, so that nothing it makes is root's on the host. Give the folder to an ordinary user ` +
      `(chown -R USER: ${JSON.stringify(boardDir)}), or run the supervisor as an ordinary user.`,
  };
}
