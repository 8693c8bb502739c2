/**
 * A slowed consumer (SIGSTOPped most of every 100 ms) and a crashed one (SIGKILLed,
 * then a fresh process), against real runs over QUIC: what each mode makes of them,
 * every wrong key explained (unexplained 0).
 */
import { brokerOf, consumerOf as consumer, runDemo, type ModeRun } from './helpers/run-demo.js';

/**
 * A lossy run with half-second phases: a fault's window is in seconds since publishing began,
 * so the phase length only sets the quiet phases around it (recovering, quiesced).
 */
const lossy = async (args: string[]): Promise<ModeRun> => (await runDemo(['--mode', 'lossy', '--duration', '0.5', ...args])).document.runs[0]!;

describe('a slowed consumer (stopped 90 % of every 100 ms, never frozen for long)', () => {
  const slow = ['--slow', 'consumer-3@1-3:90', '--rate', '2000', '--queue-capacity', '64'];

  test('falls behind and loses events under lossy, and ends wrong with every key explained', async () => {
    const run = await lossy(slow);
    expect(brokerOf(run).subscribers['consumer-3']!.dropped).toBeGreaterThan(0);
    expect(consumer(run, 'consumer-3')).toMatchObject({ unexplained: 0, endedEarly: null });
    expect(consumer(run, 'consumer-3').wrongCount).toBeGreaterThan(0);
    expect(consumer(run, 'consumer-3').faults).toEqual([{ kind: 'slow', consumer: 'consumer-3', from: 1, to: 3, percent: 90 }]);
  });

  test('lags and converges under resync', async () => {
    const { document } = await runDemo(['--mode', 'resync', '--duration', '0.5', ...slow]);
    const run = document.runs[0]!;
    expect(brokerOf(run).subscribers['consumer-3']!.lags).toBeGreaterThan(0);
    for (const c of run.consumers) expect(c).toMatchObject({ wrongCount: 0, unexplained: 0, digestMatch: true, endedEarly: null });
  });
});

describe('a crashed consumer, restarted', () => {
  test('under lossy the fresh process subscribes at latest and ends wrong, every key explained; under resync it takes a snapshot and converges', async () => {
    const { document } = await runDemo(['--mode', 'all', '--duration', '0.5', '--crash', 'consumer-3@1-2']);
    const [lossyRun, , resyncRun] = document.runs;
    const crashed = consumer(lossyRun!, 'consumer-3');
    expect(crashed).toMatchObject({ endedEarly: null, unexplained: 0, faults: [{ kind: 'crash', consumer: 'consumer-3', from: 1, to: 2 }] });
    expect(crashed.wrongCount).toBeGreaterThan(0);
    expect(crashed.applied).toBeLessThan(lossyRun!.published); // a fresh copy: it applied only what came after its restart
    expect(lossyRun!.events.filter((e) => e.type === 'crash' || e.type === 'restart').map((e) => e.type)).toEqual(['crash', 'restart']);
    expect(consumer(resyncRun!, 'consumer-3')).toMatchObject({ wrongCount: 0, digestMatch: true, endedEarly: null });
    expect(consumer(resyncRun!, 'consumer-3').recovery!.syncs[0]).toMatchObject({ kind: 'snapshot' });
  });
});
