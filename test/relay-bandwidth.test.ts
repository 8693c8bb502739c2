/**
 * A bandwidth cap in the fault relay, against a clock the test moves: the token bucket paces bytes
 * to its rate (over any window, out ≤ rate × window + bucket); the UDP direction is a bottleneck
 * with a bounded drop-tail queue whose figures add up; the TCP relay paces each direction, stops
 * reading the sender once it holds more than its queue (so TCP pushes back on the sender) and
 * lets everything go at full speed when the cap ends.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import {
  capBucketBytes,
  capQueueBytes,
  CLEAR_LINK,
  isOrchestratorCommand,
  MAX_LINK_RATE,
  MIN_LINK_RATE,
  type LinkShape,
  type RelayInit,
} from '@state-divergence/protocol';
import { Direction, TcpRelay, TokenBucket, type Timers } from '@state-divergence/relay/internal';
import { createLogger, sleep } from '@state-divergence/runtime';

/** A clock that moves only when told to, with the timers set on it. */
class FakeTimers implements Timers {
  private clock = 0;
  private timers = new Map<number, { at: number; callback: () => void }>();
  private ids = 0;
  now = (): number => this.clock;
  set = (callback: () => void, ms: number): number => {
    this.timers.set(++this.ids, { at: this.clock + ms, callback });
    return this.ids;
  };
  clear = (handle: unknown): void => void this.timers.delete(handle as number);
  advance(ms: number): void {
    const until = this.clock + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.timers.delete(due[0]);
      this.clock = Math.max(this.clock, due[1].at);
      due[1].callback();
    }
    this.clock = until;
  }
}

const capped = (rateBytesPerSec: number): LinkShape => ({ ...CLEAR_LINK, rateBytesPerSec });

describe('the token bucket', () => {
  test('over every window, what it lets out is at most the rate × the window + the bucket, and no less once busy', () => {
    const rate = 20_000;
    const bucket = new TokenBucket(rate, capBucketBytes(rate), 0);
    // Offered 5x the rate, 100 B every ms for 3 s; each ms what it lets out is noted.
    const out: number[] = [];
    let backlog = 0;
    for (let ms = 0; ms < 3_000; ms++) {
      backlog += 100;
      const n = bucket.take(backlog, ms);
      backlog -= n;
      out.push(n);
    }
    const cumulative = out.reduce<number[]>((acc, n) => [...acc, (acc.at(-1) ?? 0) + n], []);
    for (const window of [1, 10, 50, 100, 1_000, 2_999])
      for (let from = 0; from + window < out.length; from += 7) {
        const sent = cumulative[from + window]! - cumulative[from]!;
        expect(sent).toBeLessThanOrEqual((rate * window) / 1000 + capBucketBytes(rate));
      }
    // Busy throughout: the whole run passed the bucket plus the rate, to the byte (floors lose < 1 B a ms at most).
    const total = cumulative.at(-1)!;
    expect(total).toBeLessThanOrEqual(capBucketBytes(rate) + rate * 2.999);
    expect(total).toBeGreaterThan(capBucketBytes(rate) + rate * 2.999 - 3_000);
  });

  test('a booking (a datagram, whole) waits for the debt ahead of it; the debt is what waits', () => {
    const bucket = new TokenBucket(10_000, 1_500, 0);
    expect(bucket.reserve(1_500, 0)).toBe(0); // the bucket's burst
    expect(bucket.reserve(1_000, 0)).toBe(100); // 1,000 B at 10 KB/s
    expect(bucket.reserve(1_000, 0)).toBe(200);
    expect(bucket.debt(0)).toBe(2_000);
    expect(bucket.debt(150)).toBe(500);
    expect(bucket.waitMs(1_000, 250)).toBe(50); // paid up at 200 ms, 500 B since: 500 B more take 50 ms
  });
});

describe('a capped UDP direction: a bottleneck with a drop-tail queue', () => {
  test('paced to the rate, the queue bounded, the overflow dropped and counted; the figures add up', () => {
    const timers = new FakeTimers();
    const rate = 10_000;
    const size = 1_000;
    const direction = new Direction(() => 0.5, timers, size);
    const out: Array<{ at: number; id: number }> = [];
    direction.reshape(capped(rate));
    // 50 KB/s offered (a 1,000 B datagram every 20 ms) for 2 s: five times the cap.
    for (let id = 0; id < 100; id++) {
      const datagram = Buffer.alloc(size, id % 256);
      direction.carry(datagram, () => out.push({ at: timers.now(), id }));
      timers.advance(20);
    }
    const seconds = timers.now() / 1000;
    const window = direction.reshape(CLEAR_LINK)!;
    const afterEnd = out.length;
    const queue = capQueueBytes(rate, 4 * size);
    expect(window.queueBytes).toBe(queue);
    // Within the window: out ≤ rate × elapsed + bucket at every moment, and in arrival order (one queue).
    for (const [i, sent] of out.entries())
      if (sent.at < timers.now()) expect((i + 1) * size).toBeLessThanOrEqual((rate * sent.at) / 1000 + 1_500 + size);
    expect(out.map((o) => o.id)).toEqual([...out.map((o) => o.id)].sort((a, b) => a - b));
    expect(window.forwarded).toBeLessThanOrEqual(rate * seconds + capBucketBytes(rate));
    expect(window.forwarded).toBeGreaterThanOrEqual(rate * seconds - size);
    // Never more queued than the bound; what would overflow it dropped; the rest forwarded or held at the end.
    expect(window.maxHeld).toBeLessThanOrEqual(queue);
    expect(window.dropped).toBeGreaterThan(0);
    expect(window.droppedBytes).toBe(window.dropped * size);
    expect(window.arrived).toBe(100 * size);
    expect(window.arrived).toBe(window.forwarded + window.droppedBytes + window.heldAtEnd);
    expect(direction.counters.dropped).toBe(window.dropped);
    // At the cap's end what it held leaves at once.
    expect(afterEnd * size).toBe(window.forwarded + window.heldAtEnd);
    expect(out.slice(afterEnd - window.heldAtEnd / size).every((o) => o.at === timers.now())).toBe(true);
  });

  test('a datagram that fits the queue is never dropped: under the rate nothing is lost', () => {
    const timers = new FakeTimers();
    const direction = new Direction(() => 0.5, timers, 1_000);
    let forwarded = 0;
    direction.reshape(capped(100_000));
    for (let i = 0; i < 200; i++) {
      direction.carry(Buffer.alloc(1_000), () => (forwarded += 1));
      timers.advance(20); // 50 KB/s under a 100 KB/s cap
    }
    const window = direction.reshape(CLEAR_LINK)!;
    expect(window.dropped).toBe(0);
    expect(forwarded).toBe(200);
  });
});

describe("the relay's shape command carries the cap", () => {
  test('0 (no cap) or a whole rate within the bounds', () => {
    const shape = (rateBytesPerSec: unknown) => ({
      type: 'shape',
      up: { ...CLEAR_LINK, rateBytesPerSec },
      down: CLEAR_LINK,
    });
    expect(isOrchestratorCommand(shape(0))).toBe(true);
    expect(isOrchestratorCommand(shape(MIN_LINK_RATE))).toBe(true);
    expect(isOrchestratorCommand(shape(MAX_LINK_RATE))).toBe(true);
    for (const bad of [MIN_LINK_RATE - 1, MAX_LINK_RATE + 1, 20_000.5, '20000', -1])
      expect(isOrchestratorCommand(shape(bad))).toBe(false);
  });
});

describe('a capped TCP relay', () => {
  const HOST = '127.0.0.1';
  const closers: Array<() => void> = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  /** A server that writes `bytes` to its first connection at once, and keeps that socket. */
  async function firehose(bytes: number): Promise<{ port: number; sender: Promise<Socket> }> {
    let accepted!: (socket: Socket) => void;
    const sender = new Promise<Socket>((resolve) => (accepted = resolve));
    const server: Server = createServer((socket) => {
      socket.on('error', () => {});
      socket.write(Buffer.alloc(bytes, 7));
      closers.push(() => socket.destroy());
      accepted(socket);
    });
    closers.push(() => server.close());
    await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
    return { port: (server.address() as { port: number }).port, sender };
  }

  test('paces down to the rate, stops reading the sender beyond its queue, and lets it all go at the end', async () => {
    const total = 4 * 1024 * 1024;
    const { port, sender } = await firehose(total);
    const timers = new FakeTimers();
    const init: RelayInit = {
      role: 'relay',
      name: 'relay-c',
      client: 'c',
      upstream: { host: HOST, port },
      transport: 'tcp',
      datagramBytes: 1350,
      seed: 1,
      log: { level: 'silent', file: null, mode: null },
    };
    const relay = await TcpRelay.open(init, createLogger('relay-c', init.log), HOST, timers);
    closers.push(() => relay.close());
    const rate = 20_000;
    relay.shape(capped(rate), capped(rate));
    let received = 0;
    const client = createConnection({ host: HOST, port: relay.port });
    client.on('data', (chunk: Buffer) => (received += chunk.length));
    closers.push(() => client.destroy());
    const server = await sender;
    const queue = capQueueBytes(rate, 64 * 1024);
    // The clock stands still: only the bucket leaves; the relay reads until it holds its queue, then stops.
    const held = () => relay.counters().stream!.heldBytes.down;
    for (let i = 0; i < 100 && held() <= queue; i++) await sleep(20);
    await sleep(200);
    const paused = held();
    expect(paused).toBeGreaterThan(queue);
    // One read past the bound at most (Node reads up to 64 KiB at a time).
    expect(paused).toBeLessThanOrEqual(queue + 64 * 1024);
    await sleep(200);
    expect(held()).toBe(paused); // paused: nothing more is read
    expect(server.writableLength).toBeGreaterThan(0); // and the sender feels it: its writes wait
    expect(received).toBeLessThanOrEqual(capBucketBytes(rate));
    // One second of the clock: one second of the rate more, in pieces; what it holds falls under the bound, so it reads on.
    for (let ms = 0; ms < 1_000; ms += 10) {
      timers.advance(10);
      await sleep(1);
    }
    await sleep(100);
    expect(received).toBeLessThanOrEqual(capBucketBytes(rate) + rate);
    expect(received).toBeGreaterThanOrEqual(rate * 0.9);
    relay.shape(CLEAR_LINK, CLEAR_LINK);
    const [cap] = relay.counters().caps;
    expect(cap!.rateBytesPerSec).toBe(rate);
    expect(cap!.seconds).toBe(1);
    expect(cap!.pauses.down).toBeGreaterThanOrEqual(1);
    expect(cap!.forwardedBytes.down).toBeLessThanOrEqual(rate * cap!.seconds + cap!.bucketBytes);
    expect(cap!.arrivedBytes.down).toBe(cap!.forwardedBytes.down + cap!.heldAtEndBytes.down);
    // Full speed at the end: every byte arrives, in order, with the clock still standing still.
    for (let i = 0; i < 200 && received < total; i++) await sleep(20);
    expect(received).toBe(total);
    expect(relay.counters().stream!.heldBytes.down).toBe(0);
  });
});
