/**
 * LAG's `to`, as docs/PROTOCOL.md defines it: the head when the LAG is sent
 * (when the lagging subscriber's stream takes writes again), which is also the
 * offset of the SYNC_END closing the delta - not the head when its queue
 * overflowed. A real broker, a subscriber that stops reading until the broker
 * has lagged it, and a publisher that keeps going after the overflow.
 */
import { readFileSync } from 'node:fs';
import { encodeHello, encodePublish, Role, StartKind, type Frame } from '@state-divergence/protocol';
import { sleep } from '@state-divergence/runtime';
import {
  REPLY_MS,
  SLEEPER_WINDOW_BYTES,
  startBroker,
  type RealBroker,
  type TestClient,
} from './fixtures/real-broker.js';
import { Replica } from './fixtures/replica.js';

const KEYS = 64;
/** Big enough that a few hundred unread events fill any transport buffer between broker and client. */
const PAYLOAD = 8 * 1024;

let broker: RealBroker;
let watcher: Replica | undefined;
let sleeper: TestClient | undefined;
let publisher: TestClient | undefined;

afterAll(async () => {
  await Promise.all([watcher?.close(), sleeper?.close(), publisher?.close()]);
  await broker?.process.stop();
});

interface LogLine {
  msg: string;
  subscriber?: string;
  head?: number;
  from?: number;
}

function brokerLog(): LogLine[] {
  return readFileSync(broker.logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogLine);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + REPLY_MS * 4;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await sleep(50);
  }
}

test('LAG.to is the head when the LAG is sent, equal to the SYNC_END that follows, above the head at overflow', async () => {
  broker = await startBroker({ mode: 'resync', keys: KEYS, queueCapacity: 16 });
  const token = Buffer.from(broker.endpoint.token, 'hex');
  watcher = await Replica.subscribe(broker, 'watcher', StartKind.latest);
  sleeper = await broker.connect({ streamWindowBytes: SLEEPER_WINDOW_BYTES });
  await sleeper.write(encodeHello({ role: Role.subscriber, name: 'sleeper', token, start: StartKind.latest }));
  expect((await sleeper.next('WELCOME'))?.type).toBe('welcome');
  // From here the sleeper reads nothing until the broker has lagged it.
  publisher = await broker.connect();
  await publisher.write(encodeHello({ role: Role.publisher, name: 'publisher', token }));
  expect((await publisher.next('WELCOME'))?.type).toBe('welcome');

  let version = 0;
  const publish = async (count: number, perWrite = 50): Promise<void> => {
    for (let sent = 0; sent < count; sent += perWrite) {
      const batch = Array.from({ length: perWrite }, () =>
        encodePublish({
          key: version % KEYS,
          version: ++version,
          value: version,
          deleted: false,
          publishedAt: Date.now(),
          payloadLength: PAYLOAD,
        }),
      );
      await publisher!.write(Buffer.concat(batch));
    }
    await watcher!.waitForVersion(version);
  };

  // First fill the transport to the sleeper, a few events at a time (fewer than its queue holds, each
  // write applied by the watcher before the next), until the broker's write to it stays pending: then
  // events wait in its queue. Only then can an overflow not be answered at once, so the LAG must wait
  // for the sleeper to read again - the case that tells "head when sent" from "head at overflow".
  const queued = async () => (await broker.process.gather(REPLY_MS)).subscribers['sleeper']?.queued ?? 0;
  // Bounded by flow control, not by luck: the sleeper offers a 64 KiB stream window and never reads, so it
  // never grows, and 100 rounds of 4 x 8 KiB (3.2 MiB, 50 windows) must leave the broker's write pending.
  for (let round = 0; round < 100 && (await queued()) === 0; round++) await publish(4, 4);
  expect(await queued()).toBeGreaterThan(0);

  // Publish until the broker has lagged the sleeper (bounded: 20 MB at most).
  const lagged = () => brokerLog().find((line) => line.msg === 'lagged' && line.subscriber === 'sleeper');
  for (let round = 0; round < 50 && lagged() === undefined; round++) await publish(50);
  await until(() => lagged() !== undefined, 'the broker to log that the sleeper lagged');
  const headAtOverflow = lagged()!.head!;
  // The stream goes on after the overflow.
  await publish(100);
  const headWhenWoken = version;
  expect(headWhenWoken).toBeGreaterThan(headAtOverflow);

  // The sleeper reads again: whatever the transport held, then LAG, the delta, SYNC_END.
  let lag: Extract<Frame, { type: 'lag' }> | undefined;
  let syncEnd: Extract<Frame, { type: 'syncEnd' }> | undefined;
  while (syncEnd === undefined) {
    const frame = await sleeper.next('LAG, the delta and SYNC_END');
    if (frame === null) throw new Error('the sleeper stream ended before SYNC_END');
    if (frame.type === 'lag') lag = frame;
    else if (frame.type === 'syncEnd' && lag !== undefined) syncEnd = frame;
  }
  expect(lag).toBeDefined();
  expect(lag!.to).toBe(headWhenWoken);
  expect(syncEnd.offset).toBe(lag!.to);
  expect(lag!.from).toBeLessThanOrEqual(headAtOverflow + 1);
});
