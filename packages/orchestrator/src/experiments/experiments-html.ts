import type { NetworkPoint } from './experiment-points.js';
import type { ExperimentsDocument } from './experiments-document.js';
import { barChart, esc } from '../report/svg-charts.js';
import { networkFault, renderExperiments } from './experiments-text.js';
import { systemsCharts } from './systems-html.js';

const STYLE =
  'body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 ' +
  '1rem}svg{width:100%;height:auto;font-size:11px}' +
  'figure{margin:1rem 0;padding:.6rem;border:1px solid #e5e7eb;border-radius:6px}figcaption{font-weight:600}' +
  ('.legend span{margin-right:1rem;font-size:12px}.legend ' +
    'i{display:inline-block;width:10px;height:10px;margin-right:4px}pre{font-size:12px;overflow-x:auto}');

function charts(document: ExperimentsDocument): string[] {
  const { churn, queue, overlap, hotness, restart, network, systems } = document.experiments;
  const out: string[] = [];
  for (const keys of [...new Set(churn?.points.map((p) => p.keys) ?? [])]) {
    const mine = churn!.points.filter((p) => p.keys === keys);
    const rates = [...new Set(mine.map((p) => p.rate))];
    const series: Record<string, Array<number | null>> = {};
    for (const regime of ['silence', 'churn'] as const) {
      series[`${regime} measured`] = rates.map(
        (r) => mine.find((p) => p.rate === r && p.regime === regime)?.wrongFraction ?? 0,
      );
      series[`${regime} expected`] = rates.map(
        (r) => mine.find((p) => p.rate === r && p.regime === regime)?.expectedFraction ?? null,
      );
    }
    out.push(
      barChart(
        `churn, ${keys} keys: wrong fraction by rate (changes/s)`,
        rates.map(String),
        series,
        'fraction of keys',
      ),
    );
  }
  if (queue)
    out.push(
      barChart(
        'queue: ms from SIGSTOP to the first drop, by capacity',
        queue.points.map((p) => String(p.capacity)),
        { 'first drop ms': queue.points.map((p) => p.firstDropMs ?? 0) },
        'ms',
      ),
    );
  if (overlap)
    out.push(
      barChart(
        'overlap: keys wrong for both vs for only one',
        overlap.points.map((p) => p.windows),
        { both: overlap.points.map((p) => p.both), 'only one': overlap.points.map((p) => p.onlyOne) },
        'keys',
      ),
    );
  if (hotness) {
    const deciles = Array.from({ length: 10 }, (_, i) => `d${i + 1}`);
    out.push(
      barChart(
        'hotness: survival by decile, hottest first (of the keys that missed an update, the share still wrong)',
        deciles,
        Object.fromEntries(hotness.points.map((p) => [p.shape, p.survival.map((s) => s ?? 0)])),
        'fraction',
      ),
    );
  }
  if (restart) {
    const counts = [...new Set(restart.points.map((p) => p.consumers))].sort((a, b) => a - b);
    const perConsumer = Object.fromEntries(
      restart.growth.map((g) => [
        g.mode,
        counts.map((n) => g.perConsumer.find((b) => b.consumers === n)?.bytes ?? null),
      ]),
    );
    out.push(
      barChart(
        'restart: bytes each consumer was sent to catch up after the broker restarted, by consumers',
        counts.map(String),
        perConsumer,
        'bytes per consumer',
      ),
    );
  }
  if (network) {
    const { points } = network;
    const faults = [...new Set(points.map(networkFault))];
    const modes = [...new Set(points.map((p) => p.mode))];
    // One bar per mode in each fault's group; none where that point was not run.
    const by = (pick: (p: NetworkPoint) => number | null) =>
      Object.fromEntries(
        modes.map((m) => [
          m,
          faults.map((f) => {
            const p = points.find((q) => q.mode === m && networkFault(q) === f);
            return p === undefined ? null : pick(p);
          }),
        ]),
      );
    out.push(
      barChart(
        'network: keys wrong at the end, by fault and mode',
        faults,
        by((p) => p.wrong),
        'keys',
      ),
    );
    out.push(
      barChart(
        "network: the faulted consumer's publish-to-apply p99, by fault and mode",
        faults,
        by((p) => p.faultedP99Ms),
        'ms',
      ),
    );
    out.push(
      barChart(
        'network: how long the faulted consumer heard no frame from the broker for over --stale-after ms, by ' +
          'its own clock, by fault and mode (no bar: not tracked)',
        faults,
        by((p) => p.staleMs),
        'ms',
      ),
    );
  }
  if (systems) out.push(...systemsCharts(systems));
  return out;
}

/** The experiments as one self-contained HTML page: a chart per experiment, then the tables. */
export function renderExperimentsHtml(document: ExperimentsDocument): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>state-divergence experiments</title>` +
    `<style>${STYLE}</style></head><body>
<h1>The seed's experiments, measured</h1>
<p>Lossy runs (restart and network: one per mode), ${document.config.duration} s per phase, ` +
    `seed ${document.config.seed}.</p>
${charts(document).join('\n')}
<pre>${esc(renderExperiments(document))}</pre></body></html>
`
  );
}
