/**
 * What a network fault adds to a wrong key's evidence under --system (systems-run/network-judge.ts),
 * and the --reset flag's parse (network-faults.ts): pure, no process.
 */
import { networkWords, parseResets } from '@state-divergence/orchestrator/systems-internal';

const STARTED = 1_000_000;
const write = (atMs: number) => ({ key: 'k', value: 'v', seq: 1, atMs, issuedMs: atMs });
const signal = (kind: 'disconnect' | 'reconnect' | 'relist', atSeconds: number) => ({
  kind,
  atMs: STARTED + atSeconds * 1000,
});

test('a write not yet delivered when its connection was reset is explained by the reset and the reconnect after it', () => {
  const signals = [signal('disconnect', 5.07), signal('reconnect', 5.127)];
  const links = { partitions: [], resets: [3], caps: [] };
  // Written inside the stall before the reset (held in a buffer the reset discarded) and after it, before the reconnect.
  expect(networkWords(write(2_000), signals, links, STARTED)).toBe(
    '; its connection was reset at 3 s before it was delivered (its reconnect at 5.127 s)',
  );
  expect(networkWords(write(4_500), signals, links, STARTED)).toContain('reset at 3 s');
  // Written after the consumer was back: the reset does not explain it.
  expect(networkWords(write(6_000), signals, links, STARTED)).toBe('');
  expect(networkWords(write(4_000), [], links, STARTED)).toContain('(no reconnect seen)');
});

test('a write inside a partition says so; outside every network fault, nothing is added', () => {
  const links = { partitions: [{ from: 1, to: 5 }], resets: [], caps: [] };
  expect(networkWords(write(2_500), [], links, STARTED)).toBe('; written while its link was partitioned (1-5 s)');
  expect(networkWords(write(5_500), [], links, STARTED)).toBe('');
  expect(networkWords(write(2_500), [], { partitions: [], resets: [], caps: [] }, STARTED)).toBe('');
});

test('--reset takes NAME@T for a consumer of the run, T after 0', () => {
  const consumers = ['consumer-1', 'consumer-2'];
  expect(parseResets(['consumer-2@4', 'consumer-1@0.5,consumer-2@7'], consumers)).toEqual([
    { consumer: 'consumer-2', at: 4 },
    { consumer: 'consumer-1', at: 0.5 },
    { consumer: 'consumer-2', at: 7 },
  ]);
  expect(() => parseResets(['consumer-1'], consumers)).toThrow(/--reset takes NAME@T/);
  expect(() => parseResets(['consumer-1@1-2'], consumers)).toThrow(/--reset takes NAME@T/);
  expect(() => parseResets(['consumer-9@1'], consumers)).toThrow(/not a consumer of this run/);
  expect(() => parseResets(['consumer-1@0'], consumers)).toThrow(/T must be after 0/);
  expect(() => parseResets(['publisher@1'], consumers)).toThrow(/--reset publisher is not taken/);
});

test("a write inside a cap, or after it before the consumer's reconnect, says the link was capped and what the relay did", () => {
  const window = {
    rateBytesPerSec: 20_000,
    bucketBytes: 1_500,
    queueBytes: 65_536,
    seconds: 3,
    arrivedBytes: { up: 0, down: 150_000 },
    forwardedBytes: { up: 0, down: 61_000 },
    dropped: { up: 0, down: 0 },
    droppedBytes: { up: 0, down: 0 },
    maxHeldBytes: { up: 0, down: 120_000 },
    heldAtEndBytes: { up: 0, down: 89_000 },
    pauses: { up: 0, down: 7 },
  };
  const links = { partitions: [], resets: [], caps: [{ from: 1, to: 4, rateBytesPerSec: 20_000, relay: window }] };
  const words =
    '; written while its link was capped at 20 KB/s (1-4 s): its relay forwarded 61,000 B of 150,000 B to it, ' +
    'held at most 120,000 B, stopped reading the server 7 times';
  expect(networkWords(write(2_000), [], links, STARTED)).toBe(words);
  // After the cap: only if the consumer had not yet come back (a server that cut it off cut it off in the cap).
  const back = [signal('disconnect', 4.5), signal('reconnect', 5)];
  expect(networkWords(write(4_800), back, links, STARTED)).toBe(words);
  expect(networkWords(write(5_500), back, links, STARTED)).toBe('');
  expect(networkWords(write(4_800), [], links, STARTED)).toBe('');
  expect(networkWords(write(500), back, links, STARTED)).toBe('');
  // A relay that did not report: the cap is still named.
  const silent = { ...links, caps: [{ ...links.caps[0]!, relay: null }] };
  expect(networkWords(write(2_000), [], silent, STARTED)).toBe(
    '; written while its link was capped at 20 KB/s (1-4 s): its relay did not report',
  );
});
