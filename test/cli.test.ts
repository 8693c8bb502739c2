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
    const lines = String(result.stderr).trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    // Every process of a run logs to this file as it starts; nothing did.
    expect(existsSync(logFile)).toBe(false);
  });

  test('--help lists every flag of a run', async () => {
    const result = await startDemo(['--help']);
    expect(result.exitCode).toBe(0);
    const flags = ['--rate', '--keys', '--consumers', '--payload', '--queue-capacity', '--duration', '--mode', '--stall', '--seed', '--delete-ratio', '--rogue-frames', '--join-late', '--tui', '--no-tui', '--json', '--report', '--log-file', '--log-level'];
    for (const flag of flags) expect(result.stdout).toContain(flag);
    // And the other commands, each named with what it does.
    expect(result.stdout).toMatch(/orchestrator sweep\s+Lossy at each value/);
    expect(result.stdout).toMatch(/orchestrator analyze <log>\s+Rebuild a run's report/);
  });

  test.each([
    ['sweep', /^orchestrator sweep --rate 100,400,1600/, ['--rate', '--keys', '--duration', '--json', '--report']],
    ['analyze', /^orchestrator analyze <log>/, ['--json', '--report']],
  ])('%s --help is its own help, not the run\'s', async (command, usage, flags) => {
    const result = await startDemo([command, '--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(usage);
    for (const flag of flags) expect(result.stdout).toContain(flag);
    if (command === 'analyze') expect(result.stdout).not.toContain('--consumers');
  });

  test.each([
    [['sweep', '--rate', '400'], /^orchestrator sweep: sweep needs one of --rate or --keys with two or more values/],
    [['sweep', '--rate', '100,x'], /^orchestrator sweep: sweep --rate takes positive numbers/],
    [['sweep', '--rate', '100,400', '--consumers', '1'], /^orchestrator sweep: --consumers must be at least 2/],
    [['analyze'], /^orchestrator analyze: Not enough non-option arguments/],
    [['analyze', '/nonexistent/run.ndjson'], /^orchestrator analyze: cannot read \/nonexistent\/run.ndjson: ENOENT/],
  ])('%j exits 2 with one line naming its command', async (args, message) => {
    const result = await startDemo(args);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    const lines = String(result.stderr).trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});
