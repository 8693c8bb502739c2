/**
 * --nemesis random end to end: the real orchestrator draws the schedule, says it on stderr before the
 * run starts, runs it on the real processes over real QUIC, and the document holds it as it holds a
 * written one; its printed flags, given instead, are the same schedule.
 */
import { normalizeOptions, type JsonDocument } from '@state-divergence/orchestrator';
import { isGone, startDemo } from './helpers/run-demo.js';

const SCHEDULE_LINE =
  /^orchestrator: --nemesis random --seed 1 drew (\d+) faults?; to run them again, give instead of --nemesis random: (.+)$/;
const RUN = ['--mode', 'lossy', '--duration', '1', '--consumers', '3'];

/** The printed flags as a shell and yargs would pass them on. */
function parseFlags(flags: string): Record<string, string[]> {
  const words = flags.split(' ');
  const raw: Record<string, string[]> = {};
  for (let i = 0; i < words.length; i += 2) (raw[words[i]!.slice(2)] ??= []).push(words[i + 1]!);
  return raw;
}

test('a drawn schedule: printed first, run as written, reported as written, reproduced by its flags', async () => {
  // Logs to stderr (not a terminal: level info), so stderr's order shows the schedule came before the run's first log
  // line.
  const result = await startDemo(['--nemesis', 'random', '--seed', '1', ...RUN, '--json', '--log-level', 'info']);
  expect(result.exitCode).toBe(0);
  const stderr = String(result.stderr).split('\n');
  const [, count, flags] = SCHEDULE_LINE.exec(stderr[0]!) ?? [];
  expect(flags).toBeDefined();
  expect(JSON.parse(stderr[1]!)).toMatchObject({ proc: 'orchestrator', msg: 'config' });

  const document = JSON.parse(String(result.stdout)) as JsonDocument;
  expect(document.config.nemesis).toEqual({ kind: 'random', seed: 1, flags });
  expect(document.config.faults).toHaveLength(Number(count));
  // The flags it printed, given instead of --nemesis random, are the very schedule it ran.
  const written = normalizeOptions(
    { consumers: 3, duration: 1, mode: 'lossy', ...parseFlags(flags!) },
    { stderrIsTTY: false },
  );
  expect(written.faults).toEqual(document.config.faults);
  expect(written.nemesis).toBeNull();

  const [run] = document.runs;
  for (const consumer of run!.consumers)
    expect(consumer.faults).toEqual(document.config.faults.filter((f) => f.consumer === consumer.name));
  expect(run!.consumers.some((c) => c.faulted)).toBe(true);
  expect(run!.valid).not.toBe('unknown');
  expect(run!.unexplained).toBe(0);

  // Every process the run logged is gone once the orchestrator has exited.
  const lines = stderr
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { pid: number; childPid?: number });
  const pids = [
    ...new Set(lines.flatMap((l) => [l.pid, l.childPid].filter((p): p is number => typeof p === 'number'))),
  ];
  expect(pids.length).toBeGreaterThan(4);
  expect(pids.filter((pid) => !isGone(pid))).toEqual([]);
});
