import { createConnection, createServer, type Server, type Socket } from 'node:net';
import {
  CLEAR_LINK,
  type ByDirection,
  type CapWindow,
  type LinkShape,
  type RelayCounters,
  type RelayInit,
  type RelayReport,
  type StreamCounters,
} from '@state-divergence/protocol';
import { createPrng, errorMessage, type Logger } from '@state-divergence/runtime';
import { capWindow, meterFor, type CapMeter } from './cap-meter.js';
import { NODE_TIMERS, type Timers } from './delay-line.js';
import { LinkShaper } from './link-shaper.js';
import { DirectionTally, StreamPipe, type StreamPolicy } from './stream-pipe.js';

/** Mixed into the run's seed so each direction draws its own jitter (as the UDP relay's). */
const DIRECTION_SALT = { up: 0x9e3779b9, down: 0x85ebca6b } as const;

/** One accepted client connection and the upstream connection opened for it. */
interface Connection {
  client: Socket;
  upstream: Socket;
  up: StreamPipe;
  down: StreamPipe;
}

/**
 * A capped TCP direction holds up to this much per connection before it stops reading the sender:
 * one read's worth (Node reads up to 64 KiB at a time), so a slow cap does not pause after every read.
 */
const QUEUE_FLOOR_BYTES = 64 * 1024;

/**
 * One direction's shape as a TCP link reads it: a partition holds, a delay holds ± jitter, a cap
 * paces (its meter shared by every connection: one link); loss has no meaning.
 */
class StreamDirection implements StreamPolicy {
  readonly tally = new DirectionTally();
  private shape: LinkShape = CLEAR_LINK;
  private readonly shaper: LinkShaper;

  constructor(
    random: () => number,
    private readonly timers: Timers,
  ) {
    this.shaper = new LinkShaper(random);
  }

  /** From now on; a cap that ends returns its meter, closed with what it held then. */
  reshape(shape: LinkShape): CapMeter | null {
    this.shape = shape;
    // TCP delivers every byte or none: only the hold is taken from the shape (a 100 % loss is a partition).
    this.shaper.reshape({ ...shape, lossPct: 0, correlationPct: 0 });
    const ended = this.tally.cap;
    if (ended !== null) ended.heldAtEnd = this.tally.heldBytes;
    this.tally.cap = meterFor(shape, QUEUE_FLOOR_BYTES, this.timers.now(), this.tally.heldBytes);
    return ended;
  }

  cap(): CapMeter | null {
    return this.tally.cap;
  }

  partitioned(): boolean {
    return this.shape.lossPct >= 100;
  }

  holdMs(): number {
    return this.shaper.next() ?? 0;
  }
}

const uniform = (seed: number, salt: number): (() => number) => {
  const next = createPrng((seed ^ salt) >>> 0);
  return () => next() / 2 ** 32;
};

/**
 * The fault relay's TCP mode (RelayInit.transport `tcp`, a real system's clients): it listens on a
 * loopback port, the one its client is given as the server's, and for each accepted connection
 * opens one upstream connection to the server and pipes both ways (StreamPipe). Faults act on
 * every connection of its client at once: a partition holds both ways with both connections kept
 * open, and forwards what it held in order at the heal; a delay holds each chunk ± jitter, order
 * kept; a reset (`reset()`) destroys both sides of every connection with an RST, the way a NAT or
 * load balancer drops a flow; the client's next connection is carried as the first was.
 */
export class TcpRelay {
  readonly up: StreamDirection;
  readonly down: StreamDirection;
  private readonly connections = new Set<Connection>();
  private accepted = 0;
  private resetConnections = 0;
  private readonly heals: ByDirection[] = [];
  private readonly caps: CapWindow[] = [];
  /** When the cap under way began (the timers' ms); null: not capped. */
  private cappedSince: number | null = null;
  private cpuAtFirst: NodeJS.CpuUsage | undefined;

  private constructor(
    private readonly init: RelayInit,
    private readonly server: Server,
    private readonly logger: Logger,
    private readonly timers: Timers,
  ) {
    this.up = new StreamDirection(uniform(init.seed, DIRECTION_SALT.up), timers);
    this.down = new StreamDirection(uniform(init.seed, DIRECTION_SALT.down), timers);
    server.on('connection', (client) => this.accept(client));
    server.on('error', (error) => logger.warn({ err: errorMessage(error) }, 'relay listener error'));
  }

  /** Listens on `host` (loopback by default), port chosen by the kernel. */
  static async open(init: RelayInit, logger: Logger, host = '127.0.0.1', timers: Timers = NODE_TIMERS) {
    const server = createServer({ allowHalfOpen: true, noDelay: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const relay = new TcpRelay(init, server, logger, timers);
    logger.info({ client: init.client, upstream: init.upstream, port: relay.port }, 'relay listening (tcp)');
    return relay;
  }

  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the relay is not listening on TCP');
    return address.port;
  }

  get openConnections(): number {
    return this.connections.size;
  }

  shape(up: LinkShape, down: LinkShape): void {
    const healing = this.up.partitioned() || this.down.partitioned();
    const [upCap, downCap] = [this.up.reshape(up), this.down.reshape(down)];
    const partitioned = this.up.partitioned() || this.down.partitioned();
    const now = this.timers.now();
    if (upCap !== null && downCap !== null && this.cappedSince !== null) {
      const cap = capWindow(upCap, downCap, (now - this.cappedSince) / 1000);
      this.caps.push(cap);
      // What the cap held leaves now, at full speed (or at the next cap's rate), and each paused sender is read again.
      for (const c of this.connections) {
        c.up.release();
        c.down.release();
      }
      this.logger.info({ cap }, 'bandwidth cap ended: what it held leaves at full speed');
    }
    this.cappedSince = up.rateBytesPerSec > 0 ? now : null;
    if (healing && !partitioned) {
      const held = { up: this.up.tally.heldBytes, down: this.down.tally.heldBytes };
      this.heals.push(held);
      for (const c of this.connections) {
        c.up.release();
        c.down.release();
      }
      this.logger.info({ held }, 'partition healed: forwarding what was held');
    } else if (partitioned)
      for (const c of this.connections) {
        c.up.partitioned();
        c.down.partitioned();
      }
    this.logger.info({ up, down }, 'link shaped');
  }

  /** Destroys both sides of every connection now (RST each way); what they held is discarded. */
  reset(): void {
    const victims = [...this.connections];
    for (const c of victims) this.drop(c, 'reset');
    this.resetConnections += victims.length;
    this.logger.info({ connections: victims.length }, 'connections reset');
  }

  counters(): RelayCounters {
    return {
      role: 'relay',
      up: { ...this.up.tally.counters },
      down: { ...this.down.tally.counters },
      stream: this.stream(),
      caps: this.caps.map((c) => structuredClone(c)),
    };
  }

  report(): RelayReport {
    const used = this.cpuAtFirst === undefined ? undefined : process.cpuUsage(this.cpuAtFirst);
    return { ...this.counters(), clients: this.accepted, cpuMicros: used === undefined ? 0 : used.user + used.system };
  }

  close(): void {
    for (const c of [...this.connections]) this.drop(c, 'close');
    this.server.close();
  }

  private stream(): StreamCounters {
    const [up, down] = [this.up.tally, this.down.tally];
    return {
      accepted: this.accepted,
      open: this.connections.size,
      heldBytes: { up: up.heldBytes, down: down.heldBytes },
      maxHeldBytes: { up: up.maxHeldBytes, down: down.maxHeldBytes },
      heals: this.heals.map((h) => ({ ...h })),
      resetConnections: this.resetConnections,
      discardedBytes: up.discardedBytes + down.discardedBytes,
    };
  }

  private accept(client: Socket): void {
    this.cpuAtFirst ??= process.cpuUsage();
    this.accepted += 1;
    const { host, port } = this.init.upstream;
    const upstream = createConnection({ host, port, allowHalfOpen: true, noDelay: true });
    const connection: Connection = {
      client,
      upstream,
      up: new StreamPipe(client, upstream, this.up, this.up.tally, this.timers),
      down: new StreamPipe(upstream, client, this.down, this.down.tally, this.timers),
    };
    client.setNoDelay(true);
    this.connections.add(connection);
    const number = this.accepted;
    // Forgotten once both sides have closed: a half-closed one may still have held bytes to release.
    let open = 2;
    const closed = () => {
      if (--open === 0) this.connections.delete(connection);
    };
    client.on('close', closed);
    upstream.on('close', closed);
    client.on('error', (error) => this.logger.debug({ connection: number, err: errorMessage(error) }, 'client side'));
    // The server refusing (down for a crash) ends the client's connection too: its client retries, and so do we.
    upstream.on('error', (error) => this.logger.debug({ connection: number, err: errorMessage(error) }, 'server side'));
    this.logger.info({ connection: number, from: client.remotePort }, 'new client connection');
  }

  private drop(c: Connection, why: 'reset' | 'close'): void {
    this.connections.delete(c);
    c.up.discard();
    c.down.discard();
    for (const socket of [c.client, c.upstream]) {
      if (why === 'close') socket.destroy();
      else if (!socket.destroyed) socket.resetAndDestroy();
    }
  }
}
