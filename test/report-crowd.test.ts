/**
 * The text and HTML reports at hundreds of consumers (issue 21), on helpers/crowd-run.ts's
 * hand-built 256-consumer run: the healthy ones summed up (how many, how many correct, their
 * latency), every faulted, foreign, late or wrong one in full, the length bounded by those and
 * not by the healthy count; a run of CROWD (12) or fewer listed one by one as before; --json
 * keeping all of them.
 */
import { CROWD, overlaps, renderClosing, renderHtml, renderMode } from '@state-divergence/orchestrator/internal';
import { ALIKE, crowdDocument, FOREIGN as FOREIGN_NAME, LISTED, name } from './helpers/crowd-run.js';

const doc = crowdDocument();
const [run] = doc.runs;
const text = renderMode(run!, doc.config);
const lines = text.split('\n');
/** The consumers with an entry of their own: a line that starts with a name in the consumer column. */
const entries = (report: string) =>
  report.split('\n').flatMap((l) => /^ {4}(consumer-\d+)\s+applied /.exec(l)?.[1] ?? []);

describe('the text report of 256 consumers', () => {
  test('every faulted, foreign, late and wrong consumer has its entry in full, in run order, and no other does; those wrong alike share one', () => {
    expect(entries(text)).toEqual(LISTED);
    expect(text).toMatch(
      /consumer-250 {2}applied {8}6 {3}1 of 6 keys PERMANENTLY WRONG\n {18}the same for 3 more: consumer-252, consumer-253, consumer-254\n {18}wrong: /,
    );
    expect(text).toMatch(/consumer-7 {4}applied {8}6 {3}1 of 6 keys PERMANENTLY WRONG {2}<- stalled\n {18}wrong: /);
    expect(text).toContain(`${' '.repeat(18)}foreign consumer: python3 examples/naive.py`);
    expect(text).toMatch(/consumer-255 {2}applied {8}6 {3}state CORRECT {2}<- joined late/);
  });

  test('the healthy ones summed up: how many, how many correct, applied, digests, latency over all of them, their recovery and staleness', () => {
    const start = lines.findIndex((l) => l.includes('healthy consumers ('));
    expect(lines.slice(start, start + 5).map((l) => l.trim())).toEqual([
      '250 healthy consumers (no fault): 246 CORRECT; 6 of them listed one by one below',
      "the 244 not listed: applied 6-8; digest matches the broker's for 243, 1 could not be checked (the broker " +
        'did not answer)',
      "publish-to-apply over the run, each one's (250): p50 median 3.5 ms; p99 median 10 ms, worst 42 ms " +
        '(consumer-99); max 42 ms (consumer-99)',
      'lag signals to 3 of them (4 in all), 1 resumes asked, 1 deltas re-sent: each ended correct',
      '1 of them went stale at some point, the longest 0.8 s (consumer-34)',
    ]);
    // Its place: where the first consumer's entry would be, before the ones listed.
    expect(start).toBeLessThan(lines.findIndex((l) => l.startsWith('    consumer-7 ')));
  });

  test('its length is set by the consumers listed, not by the healthy ones: 512 consumers read as long as 256', () => {
    const twice = crowdDocument(512);
    const longer = renderMode(twice.runs[0]!, twice.config);
    expect(entries(longer)).toEqual(LISTED);
    expect(longer.split('\n')).toHaveLength(lines.length);
    expect(lines.length).toBeLessThan(60);
    expect(longer).toContain('506 healthy consumers (no fault): 502 CORRECT; 6 of them listed one by one below');
  });

  test('the pairs of faulted consumers that ended wrong: six, then how many more', () => {
    const pairLines = (t: string) => t.split('\n').filter((l) => / and consumer-\d+: \d+ keys wrong for both/.test(l));
    // Of the six faulted consumers only consumer-7 ended wrong: there is no pair to compare (damage.test.ts).
    expect(run!.faultedOverlap).toEqual([]);
    expect(pairLines(text)).toEqual([]);
    // Six that all ended wrong make fifteen pairs: six shown, the rest counted.
    const sixWrong = overlaps(LISTED.slice(0, 6).map((n, i) => ({ name: n, wrongKeys: [i, 100] })));
    const crowdedPairs = renderMode({ ...run!, faultedOverlap: sixWrong }, doc.config);
    expect(sixWrong).toHaveLength(15);
    expect(pairLines(crowdedPairs)).toHaveLength(6);
    expect(crowdedPairs).toContain('    ... and 9 more pairs of faulted consumers (--json: faultedOverlap)');
  });

  test('the closing line names the wrong ones, most wrong first', () => {
    expect(renderClosing(doc.runs, doc.config)).toContain(
      'at-most-once: 5 of 256 consumers permanently wrong (consumer-7 1 keys, consumer-250 1 keys, consumer-252 ' +
        '1 keys, consumer-253 1 keys, consumer-254 1 keys), none told',
    );
  });
});

describe('the threshold', () => {
  test(`${CROWD} consumers are listed one by one with no summary; ${CROWD + 1} fold the healthy ones`, () => {
    const at = crowdDocument(CROWD);
    const listed = renderMode(at.runs[0]!, at.config);
    expect(entries(listed)).toEqual(Array.from({ length: CROWD }, (_, i) => name(i + 1)));
    expect(listed).not.toContain('healthy consumers (');
    const past = crowdDocument(CROWD + 1);
    const folded = renderMode(past.runs[0]!, past.config);
    expect(entries(folded)).toEqual([name(7)]);
    expect(folded).toContain(`${CROWD} healthy consumers (no fault): ${CROWD} CORRECT\n`);
  });

  test(`the HTML of ${CROWD} consumers has a row each and no summary`, () => {
    const page = renderHtml(crowdDocument(CROWD));
    expect(page.match(/<tr><td>consumer-\d+/g)).toHaveLength(CROWD);
    expect(page).not.toContain('class="healthy"');
    expect(page).not.toContain('<details>');
  });
});

describe('the HTML report of 256 consumers', () => {
  const page = renderHtml(doc);
  const [main, folded] = page.split('<details>');
  const rows = (html: string) => [...html.matchAll(/<tr><td>(consumer-\d+)/g)].map((m) => m[1]);

  test('the healthy summary first, then a row for each consumer listed; the healthy ones one by one only inside a closed <details>', () => {
    expect(main).toContain(
      '<p class="healthy"><span class="ok">250 healthy consumers (no fault): 246 CORRECT; 6 of them listed one ' +
        'by one below</span>',
    );
    expect(main).toContain(
      "<br>publish-to-apply over the run, each one's (250): p50 median 3.5 ms; p99 median 10 ms, worst 42 ms " +
        '(consumer-99); max 42 ms (consumer-99)',
    );
    expect(rows(main!)).toEqual(LISTED);
    expect(main).toContain(
      '<tr><td>consumer-250<br><small>the same for 3 more: consumer-252, consumer-253, ' +
        'consumer-254</small></td><td>6</td><td class="bad">1 of 6 wrong</td>',
    );
    expect(folded).toMatch(/^<summary>The 244 healthy consumers not listed, one by one<\/summary>/);
    expect(rows(folded!)).toHaveLength(244);
  });

  test('the timeline: publisher, broker, one row for the healthy ones, one for each consumer listed', () => {
    const labels = [...page.matchAll(/text-anchor="end" font-size="12">([^<]+)</g)].map((m) => m[1]);
    expect(labels).toEqual([
      'publisher',
      'broker',
      '244 healthy',
      ...[...LISTED, ...ALIKE].sort((a, b) => Number(a.slice(9)) - Number(b.slice(9))),
    ]);
    // Their 247 subscriptions are one mark that says so; the three lag signals and the delta sent (one colour, one
    // slot) one more, the offsets
    // as their range; consumer-34's stale time stays on it.
    expect(page).toContain('<title>244 healthy: 244× subscribed at offset 0, 0.01 s</title>');
    expect(page).toContain(
      '<title>244 healthy: 3× lagged: queue discarded, LAG from offset 7-9; 1× delta sent up to offset 9, 1.50 ' +
        's</title>',
    );
    expect(page).toContain(
      '<title>244 healthy: stale: heard nothing from the broker (1 span of theirs), 1.00 s–1.80 s</title>',
    );
  });

  test('past 24 listed consumers the timeline draws the faulted and foreign ones and the first others on their own, the rest on one row', () => {
    // 29 more healthy consumers ended wrong (consumer-1 to -30 but the stalled consumer-7; verdicts changed by hand):
    // 41 listed in all.
    const more = new Set(Array.from({ length: 30 }, (_, k) => name(k + 1)).filter((n) => n !== name(7)));
    const wrong = {
      ...doc,
      runs: [
        {
          ...run!,
          consumers: run!.consumers.map((c) =>
            more.has(c.name) ? { ...c, verdict: 'invalid' as const, wrongCount: 1 } : c,
          ),
        },
      ],
    };
    const labels = [...renderHtml(wrong).matchAll(/text-anchor="end" font-size="12">([^<]+)</g)].map((m) => m[1]);
    expect(labels.slice(0, 4)).toEqual(['publisher', 'broker', '215 healthy', '17 more listed']);
    expect(labels).toHaveLength(4 + 24);
    // The six faulted and the foreign one first, then the first 17 of the others in run order (consumer-1 to -18 but
    // -7).
    expect(labels.slice(4)).toEqual(
      expect.arrayContaining([name(7), name(40), name(80), name(120), name(160), name(200), FOREIGN_NAME]),
    );
    expect(labels.slice(4)).toEqual(expect.arrayContaining([name(1), name(18)]));
    expect(labels).not.toContain(name(19));
  });

  test('the divergence chart: the listed ones that diverged most on their own, the rest as envelopes; the quiet ones counted', () => {
    const chart = page.slice(page.indexOf('Keys diverged (red)'), page.indexOf('Publisher rate over time'));
    const legend = [...chart.matchAll(/<span><i style="background:#[0-9a-f]+"><\/i>([^<]+)<\/span>/g)].map((m) => m[1]);
    expect(legend).toEqual([
      'consumer-7 diverged',
      'consumer-7 behind',
      'consumer-250 diverged',
      'consumer-250 behind',
      'consumer-252 diverged',
      'consumer-252 behind',
      'consumer-254 diverged',
      'consumer-254 behind',
      '7 other listed consumers: most diverged',
      '7 other listed consumers: most behind',
      '119 healthy consumers: most behind',
    ]);
    expect(chart).toContain(
      '0 throughout: consumer-1, consumer-3, consumer-5, consumer-9, consumer-11, consumer-13, consumer-15, ' +
        'consumer-17 and 118 more',
    );
  });

  test("its size is set by the consumers listed: the page outside <details> for 512 is within 1 % of 256's", () => {
    const twice = renderHtml(crowdDocument(512)).split('<details>')[0]!;
    expect(Math.abs(twice.length - main!.length) / main!.length).toBeLessThan(0.01);
  });
});

test('--json keeps every consumer, whatever the count', () => {
  expect(run!.consumers.map((c) => c.name)).toEqual(Array.from({ length: 256 }, (_, i) => name(i + 1)));
  expect(JSON.parse(JSON.stringify(doc)).runs[0].consumers).toHaveLength(256);
});
