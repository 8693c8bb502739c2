import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Where a stall is held before any server limit sees it: the kernel's socket buffers. A frozen
 * consumer reads nothing, so what the server sent it sits in the consumer's receive queue, and
 * what did not fit there in the server's send queue for that connection. Both are read from
 * /proc/net/tcp{,6} (rx_queue, tx_queue), matched to the consumer through its sockets' inodes;
 * the server's side only when it runs on this machine (a remote server's queues are its kernel's).
 */
export interface KernelQueues {
  /** The consumer's TCP connections found. */
  readonly connections: number;
  /** Bytes received by the consumer's sockets and not yet read by it. */
  readonly receiveQueue: number;
  /**
   * Bytes the peers (the server) have written to those connections and not had acknowledged:
   * only the connections whose server end is on this machine (peersSeen) are counted.
   */
  readonly peerSendQueue: number;
  /** Of the connections, those whose server end this machine's kernel holds (a remote server's it does not). */
  readonly peersSeen: number;
  /**
   * Of the connections, those the server has closed: its end closing (FIN_WAIT1/2, CLOSING,
   * TIME_WAIT: its FIN may still wait behind the data a frozen reader has not read) or the
   * consumer's end told so (CLOSE_WAIT, or CLOSE after a reset). A frozen consumer closes nothing
   * itself, so this is the server cutting it off (a slow consumer, an output buffer limit).
   */
  readonly closedByServer: number;
}

/** /proc/net/tcp's `st` codes (include/net/tcp_states.h). */
const SERVER_CLOSING = new Set([0x04, 0x05, 0x06, 0x0b]);
const TOLD_CLOSED = new Set([0x07, 0x08]);

interface TcpRow {
  local: string;
  remote: string;
  state: number;
  txQueue: number;
  rxQueue: number;
  inode: string;
}

function rows(file: string): TcpRow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      const f = line.trim().split(/\s+/);
      const [local, remote, state, queues, inode] = [f[1], f[2], f[3], f[4], f[9]];
      if (local === undefined || remote === undefined || queues === undefined || inode === undefined) return [];
      const [tx = '0', rx = '0'] = queues.split(':');
      return [
        {
          local,
          remote,
          state: parseInt(state ?? '0', 16),
          txQueue: parseInt(tx, 16),
          rxQueue: parseInt(rx, 16),
          inode,
        },
      ];
    });
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1] !== undefined) inodes.add(match[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/**
 * The kernel queues of `pid`'s TCP connections to `serverPort` (its connections to the
 * system's server; its IPC channel and anything else are left out).
 */
export function kernelQueues(pid: number, serverPort: number): KernelQueues {
  const all = [...rows('/proc/net/tcp'), ...rows('/proc/net/tcp6')];
  const inodes = socketInodes(pid);
  const portHex = `:${serverPort.toString(16).toUpperCase().padStart(4, '0')}`;
  const own = all.filter((row) => inodes.has(row.inode) && row.remote.endsWith(portHex));
  let peerSendQueue = 0;
  let peersSeen = 0;
  let closedByServer = 0;
  for (const row of own) {
    // Found by address, not inode: a socket the server closed may be an orphan (inode 0) by now.
    const peer = all.find((other) => other.local === row.remote && other.remote === row.local);
    if (TOLD_CLOSED.has(row.state) || (peer !== undefined && SERVER_CLOSING.has(peer.state))) closedByServer += 1;
    if (peer === undefined) continue;
    peersSeen += 1;
    peerSendQueue += peer.txQueue;
  }
  return {
    connections: own.length,
    receiveQueue: own.reduce((sum, row) => sum + row.rxQueue, 0),
    peerSendQueue,
    peersSeen,
    closedByServer,
  };
}
