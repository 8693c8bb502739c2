#!/usr/bin/env node
// Committed entry point: npm links bins at install time, before `prepare` has built dist/.
// It runs the CLI's bundle (scripts/bundle.mjs): one file to load instead of hundreds of modules.
// First it checks every process's bundle against the files it was built from (one stat each):
// after an edit and `tsc -b` alone, the bundles would run the old code.
import { staleBundles } from '../dist/run/child/bundle-freshness.js';

const stale = staleBundles();
if (stale !== undefined) {
  process.stderr.write(`orchestrator: ${stale}\n`);
  const { exitFlushed } = await import('@state-divergence/runtime');
  await exitFlushed(2, 'orchestrator'); // as for bad input: one line, nothing started
}
await import('../dist/bundle/main.js');
