import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

// The live page listens on 127.0.0.1, which every local user can reach: without limits, another
// user's idle connections fill the process's descriptors and its owner's browser waits forever.
// Connections are counted per local user (the uid the kernel gives the client's socket) and in
// all; the owner's are always taken, closing another user's oldest to make room.

/** How many connections one local user other than the owner may hold open. */
const PER_CLIENT = 8;
/** How many connections are held open in all. */
const IN_ALL = 32;
/** A connection that sends nothing for this long is closed. */
const IDLE_MS = 20_000;
/** A request whose headers take longer than this is refused. */
const HEADERS_MS = 10_000;

/** The owner of a loopback client's socket, or undefined where the kernel does not say (not Linux). */
type PeerUid = (socket: Socket) => number | undefined;

/**
 * Limit `server`'s connections: per local user, in all, and in time. `owner` is the uid whose
 * connections are always taken; `peerUid` says whose a connection is (injected for tests).
 */
export function limitConnections(server: Server, owner: number | undefined, peerUid: PeerUid = loopbackUid): void {
  server.headersTimeout = HEADERS_MS;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  const open = new Map<Socket, number | undefined>(); // in the order they came
  server.on('connection', (socket: Socket) => {
    const uid = peerUid(socket);
    const mine = uid !== undefined && uid === owner;
    if (!mine) {
      let theirs = 0;
      for (const other of open.values()) if (other === uid) theirs++;
      if (theirs >= PER_CLIENT || open.size >= IN_ALL) return void socket.destroy();
    } else if (open.size >= IN_ALL) {
      // Room for the owner: another user's oldest connection goes, else the owner's own oldest.
      const oldest = [...open].find(([, other]) => other !== owner) ?? [...open][0];
      oldest?.[0].destroy();
    }
    open.set(socket, uid);
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    socket.once('close', () => open.delete(socket));
  });
}

// The kernel's table, read once for a burst of connections: reading it costs as much as it has sockets.
let table: { read: number; owners: Map<string, number> } | undefined;
const FRESH_MS = 250;

/**
 * The uid of the process that holds the other end of a loopback TCP connection, from
 * /proc/net/tcp (and tcp6): the client's own entry has its port as local and ours as remote.
 */
function loopbackUid(socket: Socket): number | undefined {
  const client = socket.remotePort;
  const ours = socket.localPort;
  if (client === undefined || ours === undefined) return undefined;
  const key = `${client}:${ours}`;
  const known = table && Date.now() - table.read < FRESH_MS ? table.owners.get(key) : undefined;
  if (known !== undefined) return known;
  table = { read: Date.now(), owners: readOwners() };
  return table.owners.get(key);
}

// `local port:remote port` → uid, of every TCP socket the kernel lists.
function readOwners(): Map<string, number> {
  const owners = new Map<string, number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1]?.split(':')[1];
      const remote = fields[2]?.split(':')[1];
      if (local && remote && fields[7]) owners.set(`${parseInt(local, 16)}:${parseInt(remote, 16)}`, Number(fields[7]));
    }
  }
  return owners;
}
