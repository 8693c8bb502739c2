/**
 * The text report on a terminal narrower than its lines: broken between words, a continuation
 * under its line's indent, nothing lost, nothing wider than the terminal; a file or a pipe keeps
 * every line as it is.
 */
import { costTableText, fitWidth } from '@state-divergence/orchestrator/internal';

const wrongLine =
  '                  wrong: config/key-0040, config/key-0076, config/key-0083, config/key-0095, ' +
  'config/key-0101, config/key-0104, config/key-0110, config/key-0114, ... (+199 more)';
const report = [
  '  resync (snapshot + lag signal + delta)',
  '    2400 changes published  (target 400/s, achieved 399/s, 397/s during the stall)',
  wrongLine,
  '',
  '    consumer-1    applied     2400   state CORRECT',
].join('\n');
const words = (text: string) => text.split(/\s+/).filter(Boolean);

test('at 80 columns: no line wider, no word cut, every word kept in order, continuations indented under their line', () => {
  const fitted = fitWidth(report, 80);
  const lines = fitted.split('\n');
  expect(lines.filter((l) => l.length > 80)).toEqual([]);
  expect(words(fitted)).toEqual(words(report));
  // The wrong-key list: its first line keeps its indent (18), each continuation is 2 further in.
  const at = lines.findIndex((l) => l.trimStart().startsWith('wrong:'));
  expect(lines[at]).toMatch(/^ {18}wrong: /);
  expect(lines[at + 1]).toMatch(/^ {20}\S/);
  // broken between keys, never inside one
  expect(lines.slice(at, at + 3).every((l) => /config\/key-\d{4},?$|\)$|more\)$/.test(l.trimEnd()))).toBe(true);
  // A line that fits is left exactly as it was, its spacing too.
  expect(lines).toContain('    consumer-1    applied     2400   state CORRECT');
  expect(lines).toContain('');
});

test('no terminal (a file or a pipe): the text is unchanged', () => {
  expect(fitWidth(report, undefined)).toBe(report);
});

test('a word longer than the line is cut at the edge rather than overflowing it', () => {
  const fitted = fitWidth(`  path: ${'x'.repeat(50)} end`, 24).split('\n');
  expect(fitted.every((l) => l.length <= 24)).toBe(true);
  expect(fitted.join('').replace(/ /g, '')).toBe(`path:${'x'.repeat(50)}end`);
});

test("the cost table of four modes fits 80 columns by narrowing its gaps; with room it keeps today's three spaces", () => {
  const cost = (over: Partial<Record<string, number | null>>) => ({
    publisherRate: 400,
    publisherRateInStall: 19999.7,
    healthyP99InStallMs: 12345.6,
    faultedWrongAtEnd: 1877,
    resyncBytes: 131072,
    fullSnapshotBytes: 262144,
    replayBytes: 333984,
    reconnectBytes: 0,
    wrongAtEnd: 1877,
    diskBytes: 1234567890,
    fsyncs: 123456,
    convergedAfterThawMs: 12345.6,
    ...over,
  });
  const runs = (['lossy', 'lossless', 'resync', 'durable'] as const).map((mode) => ({
    mode,
    published: 1234567,
    brokerOutages: [],
    durable: null,
    cost: cost({}),
  }));
  const table = (columns?: number) => costTableText(runs as unknown as Parameters<typeof costTableText>[0], columns);
  const wide = table();
  expect(Math.max(...wide.map((l) => l.length))).toBeGreaterThan(80); // the case: today's table is wider than 80
  expect(table(120)).toEqual(wide);
  const narrow = table(80);
  expect(narrow.filter((l) => l.length > 80)).toEqual([]);
  expect(narrow.map((l) => l.split(/\s+/).filter(Boolean))).toEqual(wide.map((l) => l.split(/\s+/).filter(Boolean)));
});
