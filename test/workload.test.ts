import { keyName, keyProbabilities, keyWeight, NAMED_KEYS } from '@state-divergence/protocol';
import { Authority, createKeyChooser, pace } from '@state-divergence/publisher/internal';

describe('workload', () => {
  test('key weights are floor(keys/(i+1)) clamped to [1, 64]', () => {
    expect(keyWeight(0, 2000)).toBe(64);
    expect(keyWeight(30, 2000)).toBe(64); // floor(2000/31) = 64
    expect(keyWeight(31, 2000)).toBe(62); // floor(2000/32) = 62
    expect(keyWeight(999, 2000)).toBe(2);
    expect(keyWeight(1999, 2000)).toBe(1);
    expect(keyProbabilities(2000).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  test('the chooser follows the weights: hot keys dominate, every key is reachable', () => {
    const choose = createKeyChooser(100);
    expect(choose(0)).toBe(0);
    expect(choose(0xffff_ffff)).toBe(99);
    const counts = new Array<number>(100).fill(0);
    for (let i = 0; i < 100_000; i++) counts[choose(Math.floor((i / 100_000) * 2 ** 32))]! += 1;
    const p = keyProbabilities(100);
    counts.forEach((count, key) => expect(Math.abs(count / 100_000 - p[key]!)).toBeLessThan(0.001));
  });

  test('the same seed gives the same changes; another seed does not', () => {
    const run = (seed: number) => {
      const authority = new Authority(2000, seed, 8);
      return Array.from({ length: 500 }, () => authority.draw(0)).map((c) => [c.key, c.version, c.value]);
    };
    expect(run(1)).toEqual(run(1));
    expect(run(2)).not.toEqual(run(1));
  });

  test('--delete-ratio deletes about that fraction of changes, and the authority marks the key deleted', () => {
    const authority = new Authority(2000, 1, 0, 0.02);
    let deletes = 0;
    for (let i = 0; i < 20_000; i++) {
      const change = authority.draw(0);
      authority.commit(change);
      if (change.deleted) {
        deletes += 1;
        expect(change.value).toBe(0);
        expect(authority.deleted[change.key]).toBe(1);
      } else expect(authority.deleted[change.key]).toBe(0);
    }
    expect(deletes / 20_000).toBeGreaterThan(0.015);
    expect(deletes / 20_000).toBeLessThan(0.025);
    const history = authority.history.snapshot();
    expect(history.keys).toHaveLength(20_000);
    expect(Array.from(history.deleted).reduce((a, b) => a + b, 0)).toBe(deletes);
  });

  test('versions are global and strictly increasing; a change enters the keyspace only when committed', () => {
    const authority = new Authority(50, 3, 0);
    let last = 0;
    for (let i = 0; i < 1000; i++) {
      const before = authority.versions.slice();
      const change = authority.draw(0);
      expect(change.version).toBe(last + 1);
      last = change.version;
      expect(authority.versions).toEqual(before); // drawn, not yet acknowledged
      authority.commit(change);
      expect(authority.versions[change.key]).toBe(change.version);
      expect(authority.values[change.key]).toBe(change.value);
    }
  });

  test('key names: the ten named control-plane keys, then config/key-NNNN', () => {
    expect(NAMED_KEYS).toHaveLength(10);
    expect(keyName(2)).toBe('policy/authz');
    expect(keyName(5)).toBe('cert/rotation');
    expect(keyName(10)).toBe('config/key-0010');
    expect(keyName(1999)).toBe('config/key-1999');
  });

  test('the pacer sends exactly rate x duration when never blocked', async () => {
    let sent = 0;
    const result = await pace({
      rate: 500,
      durationMs: 600,
      sendBatch: async (n) => void (sent += n),
      maxBatch: 256,
      maxLagMs: 250,
      tickMs: 5,
    });
    expect(result).toMatchObject({ published: 300, forgone: 0 });
    expect(sent).toBe(300);
  });

  test('a blocked pacer makes fewer changes instead of queueing them', async () => {
    let sent = 0;
    const result = await pace({
      rate: 1000,
      durationMs: 800,
      sendBatch: async (n) => {
        sent += n;
        if (sent <= 10) await new Promise((resolve) => setTimeout(resolve, 500)); // the broker stops reading
      },
      maxBatch: 10,
      maxLagMs: 50,
      tickMs: 5,
    });
    expect(result.forgone).toBeGreaterThan(300);
    expect(result.published + result.forgone).toBe(800);
    expect(sent).toBe(result.published);
  });
});
