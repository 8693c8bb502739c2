import { existsSync } from 'node:fs';
import { startDemo, tempLogFile } from './helpers/run-demo.js';

describe('bad input', () => {
  test.each([
    [['--consumers', '1'], /^orchestrator: --consumers must be at least 2/],
    [['--stall', 'consumer-9'], /^orchestrator: --stall consumer-9 is not a consumer of this run; valid: consumer-1, consumer-2, consumer-3/],
    [['--mode', 'nope'], /^orchestrator: --mode must be one of lossy, lossless, resync, both, all, got nope/],
    [['--rate', '0'], /^orchestrator: --rate must be a positive number/],
    [['--bogus'], /^orchestrator: Unknown argument: bogus/],
  ])('%j exits 2 with one line and starts nothing', async (args, message) => {
    const logFile = tempLogFile();
    const result = await startDemo([...args, '--log-file', logFile]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    // Every process of a run logs to this file as it starts; nothing did.
    expect(existsSync(logFile)).toBe(false);
  });

  test('--help lists every flag', async () => {
    const result = await startDemo(['--help']);
    expect(result.exitCode).toBe(0);
    for (const flag of ['--rate', '--keys', '--consumers', '--payload', '--queue-capacity', '--duration', '--mode', '--stall', '--seed', '--delete-ratio', '--join-late', '--no-tui', '--tui', '--json', '--log-file', '--log-level']) {
      if (flag !== '--no-tui') expect(result.stdout).toContain(flag);
    }
  });
});
