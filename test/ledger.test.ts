/**
 * The publisher's authority holds only what the broker acknowledged: changes are drawn (the
 * seed's sequence, recorded in the history), sent, and committed by ACK; after a lost broker
 * the next broker's first ACK commits what it holds and discards the rest.
 */
import { Authority, Ledger } from '@state-divergence/publisher/internal';

const publisher = (keys = 2000, seed = 1) => {
  const authority = new Authority(keys, seed, 8, 0.05);
  const ledger = new Ledger(authority);
  const send = (count: number) =>
    Array.from({ length: count }, () => {
      const change = authority.draw(0);
      ledger.sent(change);
      return change;
    });
  return { authority, ledger, send };
};

describe('Authority: draw, then commit', () => {
  test('seed 1 draws exactly the changes it drew before the split (pinned from the previous next())', () => {
    const { authority } = publisher();
    const changes = Array.from({ length: 2000 }, () => authority.draw(0));
    expect(changes.slice(0, 4).map((c) => [c.key, c.version, c.value, c.deleted])).toEqual([
      [238, 1, 11749833, false],
      [1820, 2, 4159151403, false],
      [221, 3, 3095568220, false],
      [1951, 4, 1955374602, false],
    ]);
    expect(changes.slice(1995).map((c) => [c.key, c.version, c.value, c.deleted])).toEqual([
      [6, 1996, 4168262260, false],
      [38, 1997, 2739033644, false],
      [686, 1998, 3114518492, false],
      [15, 1999, 2599324949, false],
      [485, 2000, 2002232652, false],
    ]);
    let hash = 0;
    for (const c of changes) hash = (Math.imul(hash, 31) + c.key * 7 + c.value + (c.deleted ? 1 : 0)) >>> 0;
    expect(hash).toBe(3952873396);
  });

  test('the same seed gives the same changes whatever the broker acknowledges or discards', () => {
    const plain = publisher();
    const expected = plain.send(600).map((c) => [c.key, c.version, c.value]);
    const lossy = publisher();
    lossy.send(200);
    lossy.ledger.acknowledge(150);
    lossy.ledger.reconnected(120); // a broker that lost 121..150 and never had 151..200
    lossy.send(400);
    lossy.ledger.acknowledge(600);
    const history = lossy.authority.history.snapshot();
    expect(Array.from(history.keys, (key, i) => [key, i + 1, history.values[i]])).toEqual(expected);
  });
});

describe('Ledger', () => {
  test('ACK(v) commits every pending change up to v, in order, and nothing after it', () => {
    const { authority, ledger, send } = publisher(50, 3);
    const changes = send(10);
    ledger.acknowledge(6);
    expect(ledger.pendingCount).toBe(4);
    expect(ledger.lastAcknowledged).toBe(6);
    const committed = new Map<number, number>();
    for (const c of changes.slice(0, 6)) committed.set(c.key, c.version);
    for (const [key, version] of committed) expect(authority.versions[key]).toBe(version);
    for (const c of changes.slice(6)) expect(authority.versions[c.key]).not.toBe(c.version);
    ledger.acknowledge(4); // an older ACK changes nothing
    expect(ledger.pendingCount).toBe(4);
  });

  test('a reconnection commits what the new broker holds, discards the rest as [key, version], and never resends them', async () => {
    const { authority, ledger, send } = publisher(50, 3);
    const changes = send(10);
    ledger.acknowledge(4);
    expect(ledger.reconnected(7)).toBe(3);
    expect(ledger.discarded).toEqual(changes.slice(7).map((c) => [c.key, c.version]));
    expect(ledger.pendingCount).toBe(0);
    expect(ledger.lastAcknowledged).toBe(7);
    expect(ledger.acknowledgedLost).toBe(0);
    for (const c of changes.slice(7)) expect(authority.versions[c.key]).not.toBe(c.version);
    await expect(ledger.settled()).resolves.toBeUndefined();
  });

  test('acknowledgedLost counts committed changes the new broker no longer holds, not the discarded ones among them', () => {
    const { authority, ledger, send } = publisher(50, 3);
    send(10);
    ledger.acknowledge(10);
    ledger.reconnected(6); // lost 7..10: four acknowledged changes
    expect(ledger.acknowledgedLost).toBe(4);
    send(5); // 11..15
    ledger.acknowledge(12);
    ledger.reconnected(11); // holds up to 11: 12 lost, 13..15 discarded
    expect(ledger.acknowledgedLost).toBe(5);
    expect(ledger.discarded.map(([, version]) => version)).toEqual([13, 14, 15]);
    send(3); // 16..18
    ledger.acknowledge(18);
    // a broker that lost its memory: what the previous one still held (1..6, 11, 16..18), each lost once
    ledger.reconnected(0);
    expect(ledger.acknowledgedLost).toBe(5 + 6 + 1 + 3);
    // The authority keeps what was committed: the publisher does not take back what it made.
    expect(authority.versions.some((v) => v === 18)).toBe(true);
  });

  test('settled() waits for the last acknowledgement', async () => {
    const { ledger, send } = publisher(50, 3);
    send(3);
    let settled = false;
    const waiting = ledger.settled().then(() => (settled = true));
    ledger.acknowledge(2);
    await Promise.resolve();
    expect(settled).toBe(false);
    ledger.acknowledge(3);
    await waiting;
    expect(settled).toBe(true);
  });
});
