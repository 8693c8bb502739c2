/**
 * The HTML report of a run against a real system (systems-run/system-html.ts), drawn from its
 * --json document alone. The fixture is a real document: `orchestrator --system all --duration 1
 * --rate 800 --json` (every system, both idioms; at 800/s the 2 s stall writes 1,600 entries, past
 * redis-streams' MAXLEN ~1000, so its naive consumer ends wrong and its careful one is told and
 * relists). The page must hold each consumer's verdict, the wrong-key counts and their evidence,
 * each stall window where the time axis puts it, and every signal where it came.
 */
import { readFileSync } from 'node:fs';
import {
  renderSystemHtml,
  renderSystemRun,
  type SystemRunDocument,
} from '@state-divergence/orchestrator/systems-internal';

const document = JSON.parse(
  readFileSync(new URL('./fixtures/system-run-all.json', import.meta.url), 'utf8'),
) as SystemRunDocument;
type Run = SystemRunDocument['runs'][number];

const page = renderSystemHtml(document);

/** A run's part of the page: from its heading to the next run's. */
function sectionOf(html: string, run: Run): string {
  const start = html.indexOf(`<h2 data-run="${run.system} ${run.idiom}">`);
  expect(start).toBeGreaterThan(-1);
  const next = html.indexOf('<h2 data-run=', start + 1);
  return html.slice(start, next === -1 ? undefined : next);
}

/** Where the axis puts `t` seconds, from its own tick labels: the ticks at 0 and 1 s give the scale. */
function axisOf(section: string): (t: number) => number {
  const ticks = new Map(
    [...section.matchAll(/<text x="([\d.]+)" y="\d+" text-anchor="middle">([\d.]+)<\/text>/g)].map((m) => [
      Number(m[2]),
      Number(m[1]),
    ]),
  );
  const [zero, one] = [ticks.get(0), ticks.get(1)];
  expect(zero).toBeDefined();
  expect(one).toBeDefined();
  return (t) => zero! + t * (one! - zero!);
}

const attribute = (tag: string, name: string) => Number(new RegExp(`\\b${name}="([\\d.-]+)"`).exec(tag)![1]);

test('the fixture is a real --system all document: every system, both idioms, a wrong consumer and signals', () => {
  expect(document.kind).toBe('system-run');
  expect(document.runs.map((r) => `${r.system} ${r.idiom}`)).toHaveLength(10);
  expect(document.runs.some((r) => r.consumers.some((c) => c.wrongKeys.length > 0))).toBe(true);
  expect(document.runs.some((r) => r.consumers.some((c) => c.signals.length > 0))).toBe(true);
});

test('self-contained: one page, inline style and SVG, nothing fetched, no script', () => {
  expect(page.startsWith('<!doctype html>')).toBe(true);
  expect(page).toContain('<style>');
  expect(page).not.toMatch(/https?:\/\//);
  expect(page).not.toMatch(/<script|\bsrc=|\bhref=/);
});

describe.each(document.runs.map((run) => [`${run.system} (${run.idiom})`, run] as const))('%s', (_, run) => {
  const section = sectionOf(page, run);

  test('each consumer: its verdict, wrong-key count, explained and unexplained keys', () => {
    for (const c of run.consumers) {
      const row = new RegExp(`<tr data-consumer="${c.name}">.*?</tr>`).exec(section)?.[0];
      expect(row).toBeDefined();
      expect(row).toContain(c.stalled ? `${c.name} (stalled)` : `<td>${c.name}</td>`);
      expect(row).toContain(
        c.state === 'correct' ? '<td class="ok">correct</td>' : `${c.wrongKeys.length} of ${document.config.keys} keys`,
      );
      for (const e of c.explained) expect(row).toContain(`${e.keys} keys: ${e.evidence}`);
      expect(row).toContain(`>${c.unexplained.length}`);
      expect(row).toContain(`<td>${c.applied}</td><td>${c.relists}</td>`);
    }
    const wrong = run.consumers.reduce((sum, c) => sum + c.wrongKeys.length, 0);
    expect(section).toContain(wrong === 0 ? 'every consumer correct' : `${wrong} keys wrong`);
  });

  test('each stall: its window shaded where the axis puts it, its rate, where it was held', () => {
    const x = axisOf(section);
    for (const s of run.stalls) {
      const band = new RegExp(`<rect class="fault-band" data-fault="stall" data-consumer="${s.consumer}"[^>]*>`).exec(
        section,
      )?.[0];
      expect(band).toBeDefined();
      expect(attribute(band!, 'x')).toBeCloseTo(x(s.from), 0);
      expect(attribute(band!, 'x') + attribute(band!, 'width')).toBeCloseTo(x(s.to), 0);
      expect(section).toContain(`<td>${s.from}-${s.to} s</td><td>${s.acknowledged}</td><td>${s.ratePerSec}/s</td>`);
      expect(section).toMatch(s.heldConnections === 0 ? /no connection/ : /kernel/);
    }
  });

  test('every signal: marked where it came on its consumer, and listed in words', () => {
    const x = axisOf(section);
    const marks = [...section.matchAll(/<circle class="signal"[^>]*>.*?<\/circle>/g)].map((m) => m[0]);
    const signals = run.consumers.flatMap((c) => c.signals.map((s) => ({ ...s, consumer: c.name })));
    expect(marks).toHaveLength(signals.length);
    signals.forEach((s, i) => {
      expect(marks[i]).toContain(`data-kind="${s.kind}"`);
      expect(marks[i]).toContain(`<title>${s.consumer}: ${s.kind}`);
      expect(marks[i]).toContain(`, ${s.at.toFixed(2)} s</title>`);
      expect(attribute(marks[i]!, 'cx')).toBeCloseTo(x(s.at), 0);
    });
    for (const c of run.consumers.filter((c) => c.signals.length === 0))
      expect(section).toContain(`<b>${c.name}</b>: no signal`);
  });

  test("the server's counters before and at the end", () => {
    for (const [name, before] of Object.entries(run.counters.before)) {
      const after = run.counters.after[name]!;
      expect(section).toContain(
        `<td>${name}</td><td>${before.toLocaleString('en-US')}</td><td>${after.toLocaleString('en-US')}</td>`,
      );
    }
  });
});

test('several runs: the closing table, a row per system × idiom with its keys wrong and signals', () => {
  const table = /<table class="closing">.*?<\/table>/.exec(page)?.[0];
  expect(table).toBeDefined();
  const rows = [...table!.matchAll(/<tr><td>([^<]+)<\/td><td>([^<]+)<\/td><td class="(ok|bad)">(\d+)/g)];
  expect(rows.map((m) => `${m[1]} ${m[2]}`)).toEqual(document.runs.map((r) => `${r.system} ${r.idiom}`));
  rows.forEach((m, i) => {
    const wrong = document.runs[i]!.consumers.reduce((sum, c) => sum + c.wrongKeys.length, 0);
    expect(Number(m[4])).toBe(wrong);
    expect(m[3]).toBe(wrong === 0 ? 'ok' : 'bad');
  });
  expect(table).toContain('trimmed 1, relist 1');
});

test('one run: no closing table, its heading names the system and idiom', () => {
  const one = renderSystemHtml({ ...document, runs: [document.runs.at(-1)!] });
  expect(one).not.toContain('class="closing"');
  expect(one).toContain('<h1>state-divergence: redis-streams (careful)</h1>');
});

test("a run's knobs when its document has them; an unexplained key as a finding; the library's words escaped", () => {
  const naive = document.runs.find((r) => r.system === 'redis-streams' && r.idiom === 'naive')!;
  const [one, two, three] = naive.consumers;
  const altered = {
    ...naive,
    knobs: { maxlen: '1000' },
    unexplained: 1,
    consumers: [
      one!,
      {
        ...two!,
        state: 'wrong' as const,
        wrongKeys: ['config/key-0001'],
        unexplained: [{ key: 'config/key-0001', why: 'applied its writes out of order' }],
      },
      { ...three!, signals: [{ kind: 'error', at: 1.5, detail: 'ERR <maxlen> & "trim"' }] },
    ],
  };
  const html = renderSystemHtml({ ...document, runs: [altered] });
  expect(html).toContain('Knobs: maxlen <b>1000</b>');
  expect(html).toContain(`${three!.wrongKeys.length + 1} keys wrong, 1 unexplained`);
  expect(html).toContain('config/key-0001: applied its writes out of order');
  expect(html).toContain('ERR &lt;maxlen&gt; &amp; &quot;trim&quot;');
  expect(html).not.toContain('<maxlen>');
  // Every run names its knobs now; a system without any shows no line for them.
  expect(renderSystemHtml({ ...document, runs: [{ ...naive, knobs: {} }] })).not.toContain('Knobs:');
});

test("a server's crash in the page: its kill and restart, the failed writes, the keys it lost, a finding", () => {
  const run = document.runs.find((r) => r.system === 'redis-pubsub' && r.idiom === 'careful')!;
  const crashed = {
    ...run,
    faults: [...run.faults, { kind: 'crash', target: 'broker', from: 1, to: 2, percent: null, periods: null }],
    server: {
      restarts: [{ killedAt: 1, restartedAt: 2, readyAt: 2.08 }],
      failedWrites: 362,
      firstFailureAt: 1.01,
      lastFailureAt: 2.05,
      failure: 'Connection is closed.',
      keptFailed: 0,
      lostByServer: ['config/key-0002', 'config/key-0003'],
      findings: [{ key: 'config/key-0004', why: 'held <nobody wrote it>' }],
    },
  };
  const html = renderSystemHtml({ ...document, runs: [crashed] });
  expect(html).toContain('crash broker [1, 2) s');
  expect(html).toContain('server: killed at 1 s, restarted at 2 s, ready at 2.08 s');
  expect(html).toContain('362 writes failed, not acknowledged (1.01-2.05 s: Connection is closed.)');
  expect(html).toContain('lost by the server: 2 keys acknowledged before the crash');
  expect(html).toContain('UNEXPLAINED: config/key-0004 held &lt;nobody wrote it&gt;');
});

test("a consumer still catching up at the drain's end: said apart in the page and the text, never counted wrong", () => {
  const run = document.runs.find((r) => r.system === 'etcd' && r.idiom === 'naive')!;
  const behind = {
    ...run,
    drain: { ms: 42_000, ended: 'bound' as const, minMs: 2_000, quietMs: 2_000, boundMs: 42_000 },
    consumers: run.consumers.map((c) =>
      c.stalled ? { ...c, state: 'catching-up' as const, wrongKeys: ['k1', 'k2', 'k3'], appliedLastSecond: 7902 } : c,
    ),
  };
  const html = renderSystemHtml({ ...document, runs: [behind] });
  expect(html).toContain(
    `<td class="warn">3 of ${document.config.keys} keys behind, still catching up at the drain's end: ` +
      '7902 applied in its last second</td>',
  );
  expect(html).toContain('no key judged wrong: 3 keys behind, still catching up');
  expect(html).not.toMatch(/keys wrong/);
  expect(html).toContain('the drain 42.00 s: its bound (42 s) reached with a copy still changing');
  const text = renderSystemRun(behind, document.config);
  expect(text).toContain(
    `3 of ${document.config.keys} keys BEHIND, still catching up at the drain's end: 7902 applied in its last ` +
      'second (not judged wrong)',
  );
  expect(text).not.toContain('PERMANENTLY WRONG');
  expect(text).toContain('drain 42.00 s: its bound (42 s) reached with a copy still changing');
});

test("the drain's end in words: every copy correct, or quiet past its minimum", () => {
  const run = document.runs.find((r) => r.system === 'redis-streams' && r.idiom === 'naive')!;
  expect(renderSystemRun(run, document.config)).toContain(
    `drain ${(run.drain.ms / 1000).toFixed(2)} s: no wrong copy changed for 2 s (past its minimum, 2 s)`,
  );
  const etcd = document.runs.find((r) => r.system === 'etcd' && r.idiom === 'naive')!;
  expect(renderSystemHtml({ ...document, runs: [etcd] })).toMatch(/the drain \d+\.\d\d s: every copy correct/);
});
