import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { CapWindow, LinkShape, RelayCounters, RelayInit, RelayReport } from '@state-divergence/protocol';
import { createPrng, errorMessage, type Logger } from '@state-divergence/runtime';
import { capWindow } from './cap-meter.js';
import { NODE_TIMERS } from './delay-line.js';
import { Direction, type Sender } from './direction.js';

/**
 * Receive and send buffer of every socket. The kernel's default (~200 KiB) drops datagrams in
 * bursts at big datagram sizes (the QUIC notes measured 5-15 % at 16 KiB), which would be loss
 * the relay did not decide. 4 MiB holds 64 of the largest (65,527 B) datagrams; this machine's
 * rmem_max/wmem_max allow it (an unprivileged process gets at most those, silently).
 */
export const SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;
/**
 * When an upstream socket superseded by a newer client address (a reconnect's predecessor) is
 * closed: after `idleCloseMs` without a datagram either way, as seen by a sweep every `sweepMs`.
 */
export interface IdleTiming {
  idleCloseMs: number;
  sweepMs: number;
}
export const IDLE_TIMING: IdleTiming = { idleCloseMs: 60_000, sweepMs: 10_000 };

/** Mixed into the run's seed so each direction draws its own sequence. */
const DIRECTION_SALT = { up: 0x9e3779b9, down: 0x85ebca6b } as const;

/** One client address (a QUIC connection's source), with the socket the broker sees it through. */
interface Client {
  name: string;
  upstream: Socket;
  /** Datagrams that arrived before the upstream socket was connected. */
  pending: Buffer[] | null;
  /** Its socket is closed: a datagram still held for it is lost, as on a dead path. */
  closed: boolean;
  /** A datagram came either way since the last sweep (a flag, so the hot path reads no clock). */
  heard: boolean;
  /** When the sweep last found it heard, ms (performance.now). */
  lastHeard: number;
  toBroker: Sender;
  toClient: Sender;
}

const uniform = (seed: number, salt: number): (() => number) => {
  const next = createPrng((seed ^ salt) >>> 0);
  return () => next() / 2 ** 32;
};

function udpSocket(host: string): Socket {
  return createSocket({
    type: isIPv6(host) ? 'udp6' : 'udp4',
    recvBufferSize: SOCKET_BUFFER_BYTES,
    sendBufferSize: SOCKET_BUFFER_BYTES,
  });
}

/**
 * The fault relay: listens on its own UDP port (the one its client is given as the broker's) and
 * forwards each datagram to the broker from one socket per client address, so the broker sees
 * one peer per client connection and its replies go back to that address. Each direction is
 * shaped on its own (Direction). A reconnecting client (a new source port) gets a new upstream
 * socket; the old one is closed once idle.
 */
export class Relay {
  readonly up: Direction;
  readonly down: Direction;
  private readonly clients = new Map<string, Client>();
  private newest: Client | undefined;
  private clientsSeen = 0;
  /** CPU used when the first datagram arrived: the report's cost leaves boot out. */
  private cpuAtFirst: NodeJS.CpuUsage | undefined;
  private readonly sweep: NodeJS.Timeout;
  private readonly caps: CapWindow[] = [];
  /** When the cap under way began (performance.now ms); null: the link is not capped. */
  private cappedSince: number | null = null;

  private constructor(
    private readonly init: RelayInit,
    private readonly downstream: Socket,
    private readonly logger: Logger,
    private readonly timing: IdleTiming,
  ) {
    this.up = new Direction(uniform(init.seed, DIRECTION_SALT.up), NODE_TIMERS, init.datagramBytes);
    this.down = new Direction(uniform(init.seed, DIRECTION_SALT.down), NODE_TIMERS, init.datagramBytes);
    downstream.on('message', (datagram, from) => this.fromClient(datagram, from.address, from.port));
    downstream.on('error', (error) => logger.warn({ err: errorMessage(error) }, 'relay socket error (client side)'));
    this.sweep = setInterval(() => this.closeIdle(), timing.sweepMs).unref();
  }

  /** Binds the client-side socket on the broker's host, port chosen by the kernel. */
  static async open(init: RelayInit, logger: Logger, timing: IdleTiming = IDLE_TIMING): Promise<Relay> {
    const socket = udpSocket(init.upstream.host);
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, init.upstream.host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const relay = new Relay(init, socket, logger, timing);
    logger.info(
      {
        client: init.client,
        upstream: init.upstream,
        port: relay.port,
        datagramBytes: init.datagramBytes,
        recvBufferBytes: socket.getRecvBufferSize(),
      },
      'relay listening',
    );
    return relay;
  }

  /** Client addresses with an open upstream socket. */
  get openClients(): number {
    return this.clients.size;
  }

  get port(): number {
    return this.downstream.address().port;
  }

  shape(up: LinkShape, down: LinkShape): void {
    const [upCap, downCap] = [this.up.reshape(up), this.down.reshape(down)];
    const now = performance.now();
    if (upCap !== null && downCap !== null && this.cappedSince !== null) {
      const cap = capWindow(upCap, downCap, (now - this.cappedSince) / 1000);
      this.caps.push(cap);
      this.logger.info({ cap }, 'bandwidth cap ended: what it queued leaves at full speed');
    }
    this.cappedSince = up.rateBytesPerSec > 0 ? now : null;
    this.logger.info({ up, down }, 'link shaped');
  }

  counters(): RelayCounters {
    return {
      role: 'relay',
      up: { ...this.up.counters },
      down: { ...this.down.counters },
      caps: this.caps.map((c) => structuredClone(c)),
    };
  }

  report(): RelayReport {
    const used = this.cpuAtFirst === undefined ? undefined : process.cpuUsage(this.cpuAtFirst);
    return {
      ...this.counters(),
      clients: this.clientsSeen,
      cpuMicros: used === undefined ? 0 : used.user + used.system,
    };
  }

  close(): void {
    clearInterval(this.sweep);
    this.up.stop();
    this.down.stop();
    for (const client of this.clients.values()) this.closeClient(client);
    this.downstream.close();
  }

  private fromClient(datagram: Buffer, address: string, port: number): void {
    this.cpuAtFirst ??= process.cpuUsage();
    const key = `${address}:${port}`;
    const client = this.clients.get(key) ?? this.addClient(key, address, port);
    client.heard = true;
    this.up.carry(datagram, client.toBroker);
  }

  private addClient(key: string, address: string, port: number): Client {
    const { host, port: upstreamPort } = this.init.upstream;
    const upstream = udpSocket(host);
    const client: Client = {
      name: key,
      upstream,
      pending: [],
      closed: false,
      heard: true,
      lastHeard: performance.now(),
      toBroker: (datagram) => {
        if (client.closed) return;
        // Until the socket is connected a send would fail: keep what comes (QUIC's first handshake datagrams).
        if (client.pending === null) upstream.send(datagram);
        else client.pending.push(datagram);
      },
      toClient: (datagram) => {
        if (!client.closed) this.downstream.send(datagram, port, address);
      },
    };
    upstream.on('message', (datagram) => {
      client.heard = true;
      this.down.carry(datagram, client.toClient);
    });
    // ECONNREFUSED while the broker is down (a crash fault): the QUIC ends retry, so do we.
    upstream.on('error', (error) =>
      this.logger.debug({ client: key, err: errorMessage(error) }, 'relay socket error (broker side)'),
    );
    upstream.connect(upstreamPort, host, () => {
      if (client.closed) return;
      const pending = client.pending ?? [];
      client.pending = null;
      for (const datagram of pending) upstream.send(datagram);
    });
    this.clients.set(key, client);
    this.newest = client;
    this.clientsSeen += 1;
    this.logger.info({ client: key, clients: this.clientsSeen }, 'new client address');
    return client;
  }

  /**
   * Closes the upstream sockets of older client addresses (a reconnect's predecessors) that have
   * carried nothing for `idleCloseMs`. The newest is kept whatever its silence: the relay cannot
   * know the run's QUIC idle timeout, and a frozen client's connection may outlive a minute.
   */
  private closeIdle(): void {
    const now = performance.now();
    for (const client of this.clients.values()) {
      if (client.heard) {
        client.heard = false;
        client.lastHeard = now;
      }
      if (client === this.newest || now - client.lastHeard < this.timing.idleCloseMs) continue;
      this.closeClient(client);
      this.logger.info({ client: client.name }, 'closed an idle upstream socket');
    }
  }

  private closeClient(client: Client): void {
    this.clients.delete(client.name);
    client.closed = true;
    client.upstream.close();
  }
}
