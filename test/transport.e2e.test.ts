/**
 * --datagram-size: the same stall, seen through two transports. At the default
 * (1,350 bytes, a real network's datagram) a frozen consumer's QUIC stack takes
 * ~10 datagrams (~13 KiB) and then the broker's queue fills and overflows. At
 * 16,384 (loopback only) its initial congestion window is ~160 KiB: the ~80 KiB a
 * 2 s stall at 400/s produces never reach the broker's queue, nothing is dropped,
 * and the consumer ends correct. The report says which happened, per stall.
 */
import { brokerOf, runDemo, SHORT_STALL, type ModeRun } from './helpers/run-demo.js';

const stalledOf = (run: ModeRun) => run.consumers.find((c) => c.faulted)!;

describe('--datagram-size', () => {
  test("1,350 (the default): the transport absorbs a few datagrams, then the broker's queue fills and drops", async () => {
    const { document, log } = await runDemo(['--mode', 'lossy', ...SHORT_STALL]);
    const [run] = document.runs;
    expect(document.config.datagramSize).toBe(1350);
    expect(run!.transport.datagramBytes).toBe(1350);
    expect(log.find((l) => l.msg === 'listening')).toMatchObject({ datagramBytes: 1350 });
    const stalled = stalledOf(run!);
    expect(run!.transport.absorbed).toHaveLength(1);
    const [absorbed] = run!.transport.absorbed;
    expect(absorbed).toMatchObject({ consumer: stalled.name, queueFilled: true });
    // Ten datagrams of congestion window plus at most one batch in flight: far below a second of the stream.
    expect(absorbed!.bytes).toBeGreaterThan(0);
    expect(absorbed!.bytes).toBeLessThan(40 * 1024);
    expect(absorbed!.seconds).toBeLessThan(1);
    expect(brokerOf(run!).subscribers[stalled.name]!.dropped).toBeGreaterThan(0);
    expect(stalled.wrongCount).toBeGreaterThan(0);
  });

  test("16,384: the whole stall fits in the transport, so the broker's queue never fills and nothing is dropped", async () => {
    const { document } = await runDemo(['--mode', 'lossy', ...SHORT_STALL, '--datagram-size', '16384']);
    const [run] = document.runs;
    expect(run!.transport.datagramBytes).toBe(16384);
    const stalled = stalledOf(run!);
    const [absorbed] = run!.transport.absorbed;
    expect(absorbed).toMatchObject({ consumer: stalled.name, queueFilled: false, seconds: null });
    // Everything the broker sent it in the stall: 800 events of ~100 bytes at 400/s for 2 s.
    expect(absorbed!.bytes).toBeGreaterThan(50 * 1024);
    expect(brokerOf(run!).subscribers[stalled.name]!.dropped).toBe(0);
    expect(stalled.wrongCount).toBe(0);
  });
});
