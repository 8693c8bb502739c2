/**
 * The bench's peer section (`npm run bench -- --only peers`, a few minutes): our broker in each mode
 * and every installed real system under one workload, a row each (peer-figures.ts). A system not
 * installed is a row saying so; a run that fails is a row saying why, and the others go on.
 */
import { loadavg } from 'node:os';
import { MODES, type Mode } from '@state-divergence/protocol';
import { installed, startServer, SYSTEMS, knobValues, type TargetSystem } from '@state-divergence/systems';
import { brokerLatency, brokerRampStep } from './peer-broker.js';
import { heldRate, type PeerFigures, type PeerRow, type RampStep } from './peer-figures.js';
import { systemLatency, systemRampStep } from './peer-system.js';
import { round } from './table.js';

/** Doubling from the demo's 400/s: the ramp stops at the first step that misses, so a slow target costs one or two. */
const RAMP_RATES = [400, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000];
const LATENCY_RATE = 400;
/** Seconds of publishing per ramp step. */
const rampSeconds = (quick: boolean) => (quick ? 1 : 2);

async function ramp(step: (rate: number) => Promise<RampStep>, say: (line: string) => void): Promise<RampStep[]> {
  const steps: RampStep[] = [];
  const run = async (rate: number) => {
    const s = await step(rate);
    const superseded = s.superseded ? ` (${s.superseded} superseded writes skipped)` : '';
    say(`  ${rate}/s: ${round(s.achievedRatio * 100, 1)} % of the rate written, ${s.dropped} dropped${superseded}`);
    steps.push(s);
  };
  for (const rate of RAMP_RATES) {
    await run(rate);
    if (heldRate(steps) !== rate) break;
  }
  // One bisection step between the last rate held and the first missed: the doubling's resolution halved.
  const held = heldRate(steps);
  const missed = steps.at(-1)!.rate;
  if (held !== null && held < missed) await run(Math.round((held + missed) / 2));
  return steps;
}

const failed = (name: string, kind: PeerRow['kind'], error: unknown): PeerRow => ({
  name,
  kind,
  missing: `failed: ${(error as Error).message.split('\n')[0]}`,
  ramp: [],
  fanoutNoDrop: null,
  latency: null,
});

async function brokerRow(mode: Mode, quick: boolean, say: (line: string) => void): Promise<PeerRow> {
  const name = `broker ${mode}`;
  try {
    say(`${name}: fan-out ramp`);
    const steps = await ramp((rate) => brokerRampStep(mode, rate, rampSeconds(quick)), say);
    say(`${name}: ${LATENCY_RATE}/s with a stall`);
    const latency = await brokerLatency(mode, LATENCY_RATE, quick ? 1 : 2);
    return { name, kind: 'broker', missing: null, ramp: steps, fanoutNoDrop: heldRate(steps), latency };
  } catch (error) {
    return failed(name, 'broker', error);
  }
}

async function systemRow(system: TargetSystem, quick: boolean, say: (line: string) => void): Promise<PeerRow> {
  const refusal = installed(system);
  if (refusal !== null) return { ...failed(system.name, 'system', new Error('')), missing: refusal };
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    server = await startServer(system.name, system.server, knobValues(system, {}));
    say(`${system.name}: fan-out ramp`);
    const steps = await ramp((rate) => systemRampStep(system, server!, rate, rampSeconds(quick)), say);
    say(`${system.name}: ${LATENCY_RATE}/s with a stall`);
    // One server for the ramp and the latency run: its peak RSS is over both.
    const latency = await systemLatency(system, server, LATENCY_RATE, quick ? 1 : 2);
    return { name: system.name, kind: 'system', missing: null, ramp: steps, fanoutNoDrop: heldRate(steps), latency };
  } catch (error) {
    return failed(system.name, 'system', error);
  } finally {
    await server?.stop();
  }
}

export async function measurePeers(quick: boolean, say: (line: string) => void): Promise<PeerFigures> {
  const started = performance.now();
  const loadAtStart = loadavg()[0]!;
  const rows: PeerRow[] = [];
  for (const mode of MODES) rows.push(await brokerRow(mode, quick, say));
  for (const system of SYSTEMS) rows.push(await systemRow(system, quick, say));
  return {
    consumers: 3,
    idiom: 'naive',
    rampRates: RAMP_RATES,
    rampSeconds: rampSeconds(quick),
    latencyRate: LATENCY_RATE,
    phaseSeconds: quick ? 1 : 2,
    rows,
    wallSeconds: round((performance.now() - started) / 1000, 1),
    load: { start: round(loadAtStart, 2), end: round(loadavg()[0]!, 2) },
  };
}
