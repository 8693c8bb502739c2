import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { rulesText } from '../bench/dist/soak/rules-text.js';
import { DEFAULT_RULES } from '../bench/dist/soak/rules.js';

const SOAK = fileURLToPath(new URL('../bench/dist/soak/main.js', import.meta.url));
const soak = (...args: string[]) => execa('node', [SOAK, ...args], { reject: false, env: { NODE_OPTIONS: '' } });

describe('npm run soak: its flags', () => {
  test('--help states every rule in the words and numbers it judges by', async () => {
    const result = await soak('--help');
    expect(result.exitCode).toBe(0);
    for (const line of rulesText(DEFAULT_RULES).split('\n')) expect(result.stdout).toContain(line);
  });

  test.each([
    [[], /^soak: give --minutes N \(how long to soak\) or --runs N \(how many runs\), or both/],
    [['--minutes', '0'], /^soak: --minutes must be more than 0 and at most 1440, got 0/],
    [['--runs', '2.5'], /^soak: --runs must be a whole number 1 or more, got 2\.5/],
    [
      ['--minutes', '5', '--long-minutes', '2'],
      /^soak: --long-minutes must be 0 \(no long runs\) or 6-600 \(a long run must outlast the 180 s warm-up and 120 s judged\), got 2/,
    ],
    [['--runs', '1', '--short-duration', '0.1'], /^soak: --short-duration must be 0\.2-60 seconds, got 0\.1/],
    [['--runs', '1', '--bogus'], /^soak: Unknown argument: bogus/],
  ])('%j is refused in one line saying what to do, exit 2, nothing run', async (args, message) => {
    const result = await soak(...args);
    expect(result.exitCode).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(lines[0]).toMatch(/\(npm run soak -- --help says what each flag takes\)$/);
    expect(result.stdout).toBe('');
  });
});
