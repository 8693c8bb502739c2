/**
 * The broker's publish path over a log (LogIntake: append, then fan out, then acknowledge) and
 * the publisher's ACKs (Acker), without QUIC: the log is in memory with the DurableLog's
 * contract (fixtures/fake-log.ts), the Topic and its subscribers are real.
 */
import { encodePublish, FRAME_HEADER_LENGTH, FrameDecoder, type Change, type Frame } from '@state-divergence/protocol';
import { Acker, LogIntake, StorageFailure } from '@state-divergence/broker/internal';
import { FakeLog } from './fixtures/fake-log.js';
import { subscribe, tick, topicWith } from './fixtures/fake-subscriber.js';

let version = 0;
function change(key: number): { change: Change; body: Buffer } {
  version += 1;
  const c: Change = { key, version, value: version, deleted: false, publishedAt: 0, payloadLength: 8 };
  return { change: c, body: encodePublish(c).subarray(FRAME_HEADER_LENGTH) };
}

function durable() {
  const log = new FakeLog();
  const { topic } = topicWith({ mode: 'durable', log });
  const intake = new LogIntake(topic, log);
  const { sink } = subscribe(topic, { queueCapacity: 10, batchMaxEvents: 10, autoRelease: true });
  const accept = (key: number) => {
    const { change: c, body } = change(key);
    return intake.accept(c, body);
  };
  return { log, topic, intake, sink, accept };
}

describe('LogIntake: append, then fan out', () => {
  test('nothing downstream sees a change before its append resolved; the refusal rules see it at once', async () => {
    const { log, topic, intake, sink, accept } = durable();
    const first = version + 1;
    const committed = [accept(0), accept(1)];
    expect(intake.highestVersion).toBe(first + 1); // the next PUBLISH must exceed it already
    expect(topic.headOffset).toBe(0);
    expect(topic.highestVersion).toBe(0);
    expect(topic.table.digest.size).toBe(0);
    await tick();
    expect(sink.frames).toEqual([]);
    log.commit(); // one group commit
    await Promise.all(committed);
    expect(topic.headOffset).toBe(2);
    expect(topic.highestVersion).toBe(first + 1);
    await tick();
    expect(sink.frames).toEqual(['event 1 k0', 'event 2 k1']);
  });

  test('a storage error fails the publish, commits nothing after it, and refuses every later change', async () => {
    const { log, topic, accept } = durable();
    const ok = accept(0);
    log.commit();
    await ok;
    const failing = [accept(1), accept(2)];
    log.failWith('disk full');
    log.commit();
    for (const result of await Promise.allSettled(failing)) {
      expect(result).toEqual({ status: 'rejected', reason: expect.any(StorageFailure) });
    }
    await expect(failing[0]).rejects.toThrow(
      'the log could not store offset 2: disk full; this broker accepts no more changes',
    );
    await expect(accept(3)).rejects.toThrow(StorageFailure);
    expect(log.pendingAppends).toBe(0); // refused before the log
    expect(topic.headOffset).toBe(1);
  });

  test('settled() waits for every append, and never rejects', async () => {
    const { log, accept, intake } = durable();
    void accept(0).catch(() => {});
    let settled = false;
    void intake.settled().then(() => (settled = true));
    await tick();
    expect(settled).toBe(false);
    log.failWith('gone');
    log.commit();
    await tick();
    expect(settled).toBe(true);
  });
});

describe("Acker: the publisher's ACKs", () => {
  function acks() {
    const written: Frame[] = [];
    const pending: Array<() => void> = [];
    const write = (bytes: Uint8Array): Promise<void> => {
      const decoder = new FrameDecoder();
      decoder.push(Buffer.from(bytes));
      written.push(decoder.next()!);
      return new Promise((resolve) => pending.push(resolve));
    };
    let state = { version: 0, head: 0 };
    const acker = new Acker(write, () => state);
    return { acker, written, release: () => pending.shift()!(), set: (s: typeof state) => (state = s) };
  }

  test('now() sends what the broker holds; soon() calls in one tick share one ACK; one write in flight at a time, the next with the latest state', async () => {
    const { acker, written, release, set } = acks();
    acker.now();
    expect(written).toEqual([{ type: 'ack', version: 0, headOffset: 0 }]);
    set({ version: 3, head: 3 });
    acker.soon();
    acker.soon();
    await tick();
    expect(written).toHaveLength(1); // the first is still in flight
    set({ version: 9, head: 5 });
    acker.soon();
    release();
    await tick();
    expect(written).toEqual([
      { type: 'ack', version: 0, headOffset: 0 },
      { type: 'ack', version: 9, headOffset: 5 },
    ]);
    release();
    await tick();
    expect(written).toHaveLength(2);
    expect(acker.sent).toBe(2);
  });
});
