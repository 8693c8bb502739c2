import { installed, knobValues, SYSTEMS, type IdiomName, type TargetSystem } from '@state-divergence/systems';
import type { Session } from '../cli/session.js';
import { runSystem, type RunEvidence } from '../systems-run/run-system.js';
import { parseSystemRun } from '../systems-run/system-options.js';
import {
  bisectStall,
  edgeFigures,
  gridBracket,
  systemsPoint,
  withinQuarter,
  type SystemsEdge,
  type SystemsPoint,
} from './systems-points.js';
import { SYSTEMS_DESIGN, type SystemsDesign } from './systems-design.js';

export interface SystemsResult {
  points: SystemsPoint[];
  edges: SystemsEdge[];
  /** Systems not installed, each as the line that says which package installs it. */
  skipped: string[];
}

/** Every point of the experiment (its design: systems-design.ts), through runSystem as `orchestrator --system` runs. */

/** Runs `jobs`, at most `parallel` at once, each result in the job's place. */
async function pool<T>(jobs: (() => Promise<T>)[], parallel: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, jobs.length) }, worker));
  return results;
}

type RunPoint = (
  system: TargetSystem,
  idiom: IdiomName,
  at: Pick<SystemsPoint, 'stallSeconds' | 'rate' | 'role'>,
) => Promise<SystemsPoint>;

/** One point: the run `orchestrator --system` would make, its stalled consumer measured. */
function pointRunner(
  design: Pick<SystemsDesign, 'keys' | 'payload' | 'consumer'>,
  duration: number,
  session: Pick<Session, 'signal' | 'guard' | 'release' | 'logger' | 'registry' | 'waitingFor'>,
): RunPoint {
  return async (system, idiom, at) => {
    const stall = `${design.consumer}@${duration}-${Math.round((duration + at.stallSeconds) * 1000) / 1000}`;
    const options = parseSystemRun({
      system: system.name,
      idiom,
      rate: at.rate,
      keys: design.keys,
      payload: design.payload,
      // The phase sets only the drain's minimum here (the stall's window is given): a consumer still applying what
      // the server held for it (etcd at 2,000/s × 20 s: 40,000 events) is drained until it stops changing.
      duration,
      stall: [stall],
      json: true,
      tui: false,
    })!;
    let seen: RunEvidence | undefined;
    const run = await runSystem(system, idiom, options, session, undefined, (e) => (seen = e));
    const applied = seen?.reports.get(design.consumer)?.appliedSeqs ?? [];
    return systemsPoint(run, { applied, bySeq: seen?.bySeq ?? new Map() }, at, design.keys);
  };
}

/**
 * The edge of `system`'s naive idiom at `rate`: bisected inside the grid's bracket (none: every grid
 * stall ended correct, "none up to" the longest), beside its predictEdge from the grid's figures.
 */
async function edgeOf(
  system: TargetSystem,
  grid: readonly SystemsPoint[],
  design: Pick<SystemsDesign, 'rates' | 'resolution' | 'stalls'>,
  runPoint: RunPoint,
  onPoint: (point: SystemsPoint) => void,
): Promise<{ edge: SystemsEdge; points: SystemsPoint[] }> {
  const naive = grid.filter((p) => p.system === system.name && p.idiom === 'naive');
  const rate = design.rates[0]!;
  const atRate = naive.filter((p) => p.rate === rate);
  const upTo = Math.max(...design.stalls);
  const figures = edgeFigures(atRate, naive);
  const prediction = system.predictEdge?.({ ...figures, knobs: knobValues(system) }) ?? null;
  const bracket = gridBracket(atRate);
  const points: SystemsPoint[] = [];
  let found = bracket;
  if (bracket !== null) {
    const bisected = await bisectStall(bracket, design.resolution, async (stallSeconds) => {
      const point = await runPoint(system, 'naive', { stallSeconds, rate, role: 'edge' });
      points.push(point);
      onPoint(point);
      return point.wrong > 0;
    });
    found = bisected;
  }
  const edgeSeconds = found?.wrong ?? null;
  return {
    edge: {
      system: system.name,
      rate,
      upTo,
      edgeSeconds,
      correctBelow: found?.correct ?? upTo,
      runs: points.length,
      prediction,
      withinQuarter: withinQuarter(edgeSeconds, prediction?.seconds),
    },
    points,
  };
}

/** The whole experiment: the grid (every installed system × idiom × stall × rate), then the edges. */
export async function runSystemsExperiment(
  duration: number,
  session: Pick<Session, 'signal' | 'guard' | 'release' | 'logger' | 'registry' | 'waitingFor'>,
  onPoint: (point: SystemsPoint) => void,
  design: SystemsDesign = SYSTEMS_DESIGN,
): Promise<SystemsResult> {
  const chosen = SYSTEMS.filter((system) => design.systems?.includes(system.name) ?? true);
  const here = chosen.filter((system) => installed(system) === null);
  const skipped = chosen.flatMap((system) => installed(system) ?? []);
  const runPoint = pointRunner(design, duration, session);
  // Longest stalls first: the pool then ends on short runs, not one long one alone.
  const cells = here
    .flatMap((system) =>
      (['naive', 'careful'] as const).flatMap((idiom) =>
        design.rates.flatMap((rate) => design.stalls.map((stallSeconds) => ({ system, idiom, rate, stallSeconds }))),
      ),
    )
    .sort((a, b) => b.stallSeconds - a.stallSeconds);
  const grid = await pool(
    cells.map((cell) => async () => {
      const { rate, stallSeconds } = cell;
      const point = await runPoint(cell.system, cell.idiom, { rate, stallSeconds, role: 'grid' });
      onPoint(point);
      return point;
    }),
    design.parallel,
  );
  const edges = await pool(
    here.map((system) => () => edgeOf(system, grid, design, runPoint, onPoint)),
    design.parallel,
  );
  const order = (p: SystemsPoint) =>
    [here.findIndex((s) => s.name === p.system), p.idiom === 'naive' ? 0 : 1, p.rate, p.stallSeconds] as const;
  const byOrder = (a: SystemsPoint, b: SystemsPoint) => {
    const [x, y] = [order(a), order(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return 0;
  };
  const points = [...grid, ...edges.flatMap((e) => e.points)].sort(byOrder);
  return { points, edges: edges.map((e) => e.edge), skipped };
}
