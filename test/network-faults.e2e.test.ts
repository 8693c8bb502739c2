/**
 * Network faults through real fault relays (packages/relay) over real QUIC: the done-means
 * at half-second phases. A 2 s partition of consumer-3 ([0.5, 2.5) s) with a 256-event queue: the
 * transport absorbs ~13 KB and the queue 256 events of the 800 published in it, so lossy drops
 * hundreds however loaded the machine is (as SHORT_STALL's stall).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  brokerOf,
  consumerOf,
  pidsInLog,
  readLog,
  reapAfterEach,
  runDemo,
  startDemo,
  survivorsAfter,
  tempLogFile,
  type LogLine,
  type ModeRun,
} from './helpers/run-demo.js';

const PARTITION = ['--duration', '0.5', '--partition', 'consumer-3@0.5-2.5', '--queue-capacity', '256'];
const reaper = reapAfterEach();

const relayOf = (run: ModeRun, client: string) => {
  const relay = run.relays[client];
  if (relay === undefined)
    throw new Error(
      `no relay for ${client} in the ${run.mode} run (it has ${Object.keys(run.relays).join(', ') || 'none'})`,
    );
  return relay;
};

/**
 * One lossy run holds the partition of consumer-3 and the 20 % loss on consumer-2's link ([0, 2) s):
 * each is a fault of its own client's link through its own relay, and the tests below assert on each.
 */
let lossy: Awaited<ReturnType<typeof runDemo>>;
beforeAll(async () => {
  lossy = await runDemo(['--mode', 'lossy', ...PARTITION, '--loss', 'consumer-2@0-2:20']);
});

describe('a partitioned consumer', () => {
  test("lossy: it ends wrong, every key explained by the broker's drops; the others are correct; the relay dropped what the broker sent into the partition", () => {
    const { document, log } = lossy;
    const run = document.runs[0]!;
    const cut = consumerOf(run, 'consumer-3');
    expect(cut).toMatchObject({
      faulted: true,
      unexplained: 0,
      endedEarly: null,
      staleMs: null,
      faults: [{ kind: 'partition', consumer: 'consumer-3', from: 0.5, to: 2.5 }],
    });
    expect(cut.wrongCount).toBeGreaterThan(0);
    expect(cut.explained.missed).toBe(cut.wrongCount);
    expect(brokerOf(run).subscribers['consumer-3']!.dropped).toBeGreaterThan(0);
    expect(consumerOf(run, 'consumer-1')).toMatchObject({
      faulted: false,
      wrongCount: 0,
      unexplained: 0,
      digestMatch: true,
    });
    // (consumer-2, on the lossy link, is faulted; that it is correct is asserted with the loss below.)
    // One relay for each network-faulted client (none for consumer-1): consumer-3's carried the link, and dropped what
    // crossed it in the partition.
    expect(Object.keys(run.relays).sort()).toEqual(['consumer-2', 'consumer-3']);
    const relay = relayOf(run, 'consumer-3');
    expect(relay.down.dropped).toBeGreaterThan(0); // the broker kept (re)sending into the partition
    expect(relay.down.forwarded).toBeGreaterThan(0);
    expect(relay.clients).toBe(1); // 2 s is far below the idle timeout: the connection lived through it
    expect(relay.microsPerDatagram).toBeGreaterThan(0);
    // In plan order: the loss over [0, 2) s, the partition over [0.5, 2.5) s.
    const netEvents = run.events
      .filter((e) => e.type === 'net-fault' || e.type === 'net-heal')
      .map((e) => [e.type, 'consumer' in e ? e.consumer : null]);
    expect(netEvents).toEqual([
      ['net-fault', 'consumer-2'],
      ['net-fault', 'consumer-3'],
      ['net-heal', 'consumer-2'],
      ['net-heal', 'consumer-3'],
    ]);
    expect(new Set(log.map((line) => line.proc).filter((proc) => proc.startsWith('relay-')))).toEqual(
      new Set(['relay-consumer-2', 'relay-consumer-3']),
    );
  });

  test('resync: every consumer ends correct; the cut-off one was stale for most of the window, the others for far less', async () => {
    const { document } = await runDemo(['--mode', 'resync', ...PARTITION]);
    const run = document.runs[0]!;
    for (const c of run.consumers)
      expect(c).toMatchObject({ wrongCount: 0, unexplained: 0, digestMatch: true, endedEarly: null });
    const cut = consumerOf(run, 'consumer-3');
    // Stale from 750 ms (three heartbeats) after its last frame (at most 0.5 s) to its first after the heal (at least
    // 2.5 s).
    expect(cut.staleMs).toBeGreaterThan(1000);
    expect(cut.staleSpans.length).toBeGreaterThan(0);
    const [from, to] = cut.staleSpans[0]!;
    expect(from).toBeGreaterThanOrEqual(0.5);
    expect(to).toBeGreaterThanOrEqual(2.5);
    // not 0: a 750 ms pause of a loaded machine is stale time too
    expect(consumerOf(run, 'consumer-1').staleMs).toBeLessThan(cut.staleMs! / 2);
  });
});

test("20 % loss on consumer-2's link under lossy: consumer-2 correct (and consumer-1 beside it); the relay dropped datagrams and QUIC retransmitted them", () => {
  const run = lossy.document.runs[0]!;
  for (const name of ['consumer-1', 'consumer-2'])
    expect(consumerOf(run, name)).toMatchObject({ wrongCount: 0, unexplained: 0, digestMatch: true, endedEarly: null });
  expect(consumerOf(run, 'consumer-2').faults).toEqual([
    { kind: 'loss', consumer: 'consumer-2', from: 0, to: 2, lossPct: 20 },
  ]);
  const relay = relayOf(run, 'consumer-2');
  expect(relay.down.dropped).toBeGreaterThan(0);
  expect(relay.up.dropped).toBeGreaterThan(0);
  const transport = brokerOf(run).subscribers['consumer-2']!.transport;
  expect(transport.lost).toBeGreaterThan(0);
  expect(transport.retrans).toBeGreaterThan(0);
});

test('a relay killed mid-run ends the run as a child crash does: one line naming it and its client, exit 1, nothing left', async () => {
  const logFile = tempLogFile();
  reaper.track(logFile);
  const demo = startDemo([
    '--mode',
    'lossy',
    '--duration',
    '0.5',
    '--partition',
    'consumer-3@0.5-60',
    '--log-file',
    logFile,
  ]);
  const deadline = Date.now() + 30_000;
  let started: LogLine | undefined;
  while (!started && Date.now() < deadline) {
    await sleep(100);
    started = readLog(logFile).find((line) => line.msg === 'network fault started');
  }
  expect(started).toBeDefined();
  const log = readLog(logFile);
  const relayPid = log.find((line) => line.proc === 'relay-consumer-3' && line.msg === 'ready')!.pid;
  process.kill(relayPid, 'SIGKILL');
  const result = await demo;
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toMatch(
    new RegExp(
      `relay-consumer-3 \\(pid ${relayPid}\\), the fault relay of consumer-3's link to the broker, killed by ` +
        `SIGKILL in the middle of the run`,
    ),
  );
  expect(await survivorsAfter(pidsInLog(log), 5_000)).toEqual([]);
});

test.each([
  ['--partition', 'broker@1-2', /^orchestrator: --partition broker@1-2: only --crash can fault the broker/],
  ['--loss', 'consumer-2@0-4:101', /^orchestrator: --loss consumer-2@0-4:101: PCT must be from 1 to 100, got 101 /],
  ['--delay', 'consumer-9@0-4:50', /^orchestrator: --delay consumer-9 is not a client of this run/],
])('%s %s: one line naming the flag, exit 2, nothing started', async (flag, value, message) => {
  const logFile = tempLogFile();
  const result = await startDemo(['--mode', 'lossy', flag, value, '--log-file', logFile]);
  expect(result.exitCode).toBe(2);
  const lines = String(result.stderr).trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(message);
  expect(readLog(logFile)).toEqual([]);
});
