/**
 * The fault relay as a run uses it: a real relay process between real QUIC clients and a real
 * broker. Data flows through it; under a partition nothing passes either way (the relay's counters
 * stand still on forwarded while dropped grows, and the broker never gets what was published);
 * once cleared, QUIC retransmits and the flow resumes on the same connections.
 */
import {
  CLEAR_LINK,
  encodeHello,
  encodePublish,
  PARTITIONED_LINK,
  Role,
  StartKind,
  type RelayCounters,
} from '@state-divergence/protocol';
import type { ChildHandle } from '@state-divergence/orchestrator';
import { sleep } from '@state-divergence/runtime';
import { REPLY_MS, startBroker, type RealBroker, type TestClient } from './fixtures/real-broker.js';
import { Replica } from './fixtures/replica.js';

const KEYS = 16;

let broker: RealBroker | undefined;
let relay: ChildHandle<'relay'> | undefined;
let replica: Replica | undefined;
let publisher: TestClient | undefined;

afterAll(async () => {
  await Promise.all([replica?.close(), publisher?.close()]);
  await Promise.all([relay?.stop(), broker?.process.stop()]);
});

/** Polls the relay's counters until `condition` holds (bounded). */
async function countersUntil(condition: (c: RelayCounters) => boolean, what: string): Promise<RelayCounters> {
  const deadline = Date.now() + REPLY_MS;
  for (;;) {
    const counters = await relay!.status(REPLY_MS);
    if (condition(counters)) return counters;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what} (${JSON.stringify(counters)})`);
    await sleep(50);
  }
}

test('through a relay: data flows; a partition passes nothing either way and its counters say so; clear restores the flow', async () => {
  // resync: the broker sends PROGRESS to an idle subscriber, so there is traffic down the link to drop.
  broker = await startBroker({ mode: 'resync', keys: KEYS });
  relay = await broker.startRelay('consumer-1');
  const through: RealBroker = { ...broker, connect: () => broker!.connect({ port: relay!.port }) };
  const token = Buffer.from(broker.endpoint.token, 'hex');

  replica = await Replica.subscribe(through, 'consumer-1', StartKind.latest);
  publisher = await through.connect();
  await publisher.write(encodeHello({ role: Role.publisher, name: 'publisher', token }));
  expect((await publisher.next('WELCOME'))?.type).toBe('welcome');
  const publish = (from: number, to: number): Buffer =>
    Buffer.concat(
      Array.from({ length: to - from + 1 }, (_, i) =>
        encodePublish({
          key: (from + i) % KEYS,
          version: from + i,
          value: from + i,
          deleted: false,
          publishedAt: Date.now(),
          payloadLength: 16,
        }),
      ),
    );

  await publisher.write(publish(1, 5));
  await replica.waitForVersion(5);
  const flowing = await relay.status(REPLY_MS);
  expect(flowing.up.forwarded).toBeGreaterThan(0);
  expect(flowing.down.forwarded).toBeGreaterThan(0);
  expect(flowing.up.bytes).toBeGreaterThan(0);
  expect(flowing.down.bytes).toBeGreaterThan(0);
  expect(flowing.up.dropped + flowing.down.dropped).toBe(0);

  // Commands and requests reach the relay in order: this status is taken after the partition began.
  relay.send({ type: 'shape', up: PARTITIONED_LINK, down: PARTITIONED_LINK });
  const cut = await relay.status(REPLY_MS);
  const writing = publisher.write(publish(6, 10));
  // Both sides keep sending (the publisher its changes, the broker its heartbeat): each way drops.
  const during = await countersUntil(
    (c) => c.up.dropped > cut.up.dropped && c.down.dropped > cut.down.dropped,
    'datagrams dropped both ways',
  );
  expect(during.up.forwarded).toBe(cut.up.forwarded);
  expect(during.down.forwarded).toBe(cut.down.forwarded);
  // Nothing of what was published in the partition reached the broker, so nothing reached the subscriber.
  expect([6, 7, 8, 9, 10].some((v) => replica!.versionsSeen.has(v))).toBe(false);
  expect((await broker.process.status(REPLY_MS)).head).toBe(5);

  relay.send({ type: 'shape', up: CLEAR_LINK, down: CLEAR_LINK });
  await writing;
  // QUIC resends what the partition dropped: the same connections carry on.
  await replica.waitForVersion(10);
  expect(replica.problems).toEqual([]);
  const after = await relay.status(REPLY_MS);
  expect(after.up.forwarded).toBeGreaterThan(during.up.forwarded);
  expect(after.down.forwarded).toBeGreaterThan(during.down.forwarded);

  const report = await relay.gather(REPLY_MS);
  // One upstream socket per client address: the subscriber's and the publisher's connections.
  expect(report.clients).toBe(2);
  expect(report.up.dropped).toBeGreaterThanOrEqual(during.up.dropped);
  expect(report.down.dropped).toBeGreaterThanOrEqual(during.down.dropped);
  expect(report.cpuMicros).toBeGreaterThan(0);
});
