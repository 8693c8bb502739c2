/**
 * The systems experiment: every installed system × idiom stalled over a grid of stall length ×
 * rate at the seed's keyspace, then each naive idiom's edge bisected at one rate. Each point is a
 * whole `orchestrator --system NAME --idiom I --rate R --stall consumer-3@d-(d+S)` run (runSystem),
 * `parallel` of them at a time, each on its own server.
 */
export const SYSTEMS_DESIGN: SystemsDesign = {
  systems: null,
  stalls: [2, 8, 20],
  rates: [400, 2000],
  keys: 2000,
  payload: 64,
  consumer: 'consumer-3',
  /** The edge is bisected at the grid's first rate, to this many seconds, within the grid's stalls. */
  resolution: 0.5,
  /** Runs side by side: two fit on 2 cores (each point's rate held within a few % of the asked one). */
  parallel: 2,
};

/** The design, its systems (null: every installed one), stalls and rates narrowed by `--systems-only`, `--stalls`,
 * `--rates`. */
export interface SystemsDesign {
  systems: readonly string[] | null;
  stalls: readonly number[];
  rates: readonly number[];
  keys: number;
  payload: number;
  consumer: string;
  resolution: number;
  parallel: number;
}
