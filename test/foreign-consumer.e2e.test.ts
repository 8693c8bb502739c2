/**
 * A consumer the orchestrator did not write (examples/consumer-js, which reads
 * only docs/CONSUMER.md and docs/PROTOCOL.md) run as one of the run's
 * consumers with --consumer-cmd, and judged exactly as ours: the same faults,
 * drain, digest and checker, the same report rows.
 */
import { fileURLToPath } from 'node:url';
import { consumerOf as consumer, runDemo, SHORT_STALL, surelyFrozenMs } from './helpers/run-demo.js';

const EXAMPLE = fileURLToPath(new URL('../examples/consumer-js/main.js', import.meta.url));
const naive = `node ${EXAMPLE}`;
const careful = `node ${EXAMPLE} --careful`;

test("the example, careful, under resync converges: snapshot, lag signal and delta, digest equal to the broker's; it tracks its own stale time", async () => {
  const { document, log, survivors } = await runDemo([
    '--mode',
    'resync',
    ...SHORT_STALL,
    '--consumer-cmd',
    `consumer-3=${careful}`,
  ]);
  const run = document.runs[0]!;
  const theirs = consumer(run, 'consumer-3');
  expect(theirs).toMatchObject({
    command: careful,
    contract: [],
    faulted: true,
    verdict: 'valid',
    wrongCount: 0,
    lost: 0,
    unexplained: 0,
    digestMatch: true,
  });
  expect(theirs.recovery!.syncs[0]).toMatchObject({ kind: 'snapshot' });
  expect(theirs.recovery!.deltas).toBeGreaterThanOrEqual(1);
  // Its stall, counted by its own stale.js once thawed: from staleAfterMs (750) after its last frame to its
  // first after, so at least the time it was surely stopped less 750 (1 ms: times are rounded).
  const staleMs = log
    .filter((l) => l.proc === 'consumer-3' && l.msg === 'fresh again')
    .reduce((sum, l) => sum + Number(l.staleMs), 0);
  expect(staleMs).toBeGreaterThanOrEqual(surelyFrozenMs(run, 'consumer-3') - 750 - 1);
  expect(survivors).toEqual([]);
});

/**
 * One lossy run, ours and the example side by side: consumer-2 (ours), consumer-3 (the example,
 * naive) and consumer-4 (the example, careful) frozen over the same [0.5, 2.5) s, consumer-1 (ours)
 * never. Publishing goes on to 3.5 s, so a later event shows the careful consumer its gap.
 */
describe('one lossy run, ours and the example side by side', () => {
  let mixed: Awaited<ReturnType<typeof runDemo>>;
  beforeAll(async () => {
    const args = [
      '--mode',
      'lossy',
      '--duration',
      '0.5',
      '--consumers',
      '4',
      '--stall',
      'consumer-2@0.5-2.5,consumer-3@0.5-2.5,consumer-4@0.5-2.5',
      '--queue-capacity',
      '256',
      '--publish-until',
      '3.5',
    ];
    mixed = await runDemo([
      ...args,
      '--consumer-cmd',
      `consumer-3=${naive}`,
      '--consumer-cmd',
      `consumer-4=${careful}`,
    ]);
  });

  test('the example, naive, under lossy ends wrong exactly as ours does: the same checker, every wrong key explained by a drop, its digest differs', () => {
    const { document, survivors } = mixed;
    const [run] = document.runs;
    const theirs = consumer(run!, 'consumer-3');
    expect(theirs).toMatchObject({
      command: naive,
      contract: [],
      faulted: true,
      verdict: 'invalid',
      unexplained: 0,
      unexpected: 0,
      digestMatch: false,
      endedEarly: null,
    });
    expect(theirs.wrongCount).toBeGreaterThan(0);
    expect(run!.unexplained).toBe(0);
    // Ours beside it are ours, and unchanged.
    expect(consumer(run!, 'consumer-1')).toMatchObject({ command: null, contract: [] });
    expect(survivors).toEqual([]);
  });

  test('a mixed run: ours and the example side by side, each judged; the same stall leaves ours wrong and the careful example correct', () => {
    const { document, survivors } = mixed;
    const run = document.runs[0]!;
    expect(run.consumers.map((c) => [c.name, c.command])).toEqual([
      ['consumer-1', null],
      ['consumer-2', null],
      ['consumer-3', naive],
      ['consumer-4', careful],
    ]);
    for (const c of run.consumers) {
      expect(c.verdict).not.toBe('unknown');
      expect(c).toMatchObject({ unexplained: 0, unexpected: 0, contract: [] });
    }
    const ours = consumer(run, 'consumer-2');
    const theirs = consumer(run, 'consumer-4');
    expect(run.broker!.subscribers['consumer-2']!.dropped).toBeGreaterThan(0);
    expect(run.broker!.subscribers['consumer-4']!.dropped).toBeGreaterThan(0);
    expect(ours.wrongCount).toBeGreaterThan(0);
    expect(theirs).toMatchObject({ verdict: 'valid', wrongCount: 0, digestMatch: true });
    expect(theirs.recovery!.resumes).toBeGreaterThanOrEqual(1);
    expect(survivors).toEqual([]);
  });
});
