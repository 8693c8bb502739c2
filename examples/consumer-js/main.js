#!/usr/bin/env node
// A change-stream consumer written by someone else: only docs/CONSUMER.md (how
// the harness drives it) and docs/PROTOCOL.md (the wire) were read to write it,
// and it imports nothing of the harness, only @matrixai/quic.
//
//   node examples/consumer-js/main.js             naive: subscribe at latest, apply what arrives
//   node examples/consumer-js/main.js --careful   snapshot subscribe, offset checks, RESUME on a gap
//
// Run it under the harness:
//   npx orchestrator --consumer-cmd "consumer-3=node examples/consumer-js/main.js --careful"

import { awaitInit, send, serve } from './contract.js';
import { createLog } from './log.js';
import { Subscription } from './subscription.js';

const CLOSE_BUDGET_MS = 500;
const PROGRESS_MS = 1_000;

const flags = process.argv.slice(2);
const unknown = flags.filter((flag) => flag !== '--careful');
if (unknown.length > 0) {
  process.stderr.write(`consumer-js: unknown argument ${unknown[0]}; usage: main.js [--careful]\n`);
  process.exit(2);
}
const careful = flags.includes('--careful');

const init = await awaitInit();
const log = createLog(init.name, init.log);
let subscription;
let exiting = false;

/** Closes QUIC (bounded: never wait out its closing period), then exits. */
async function exit(code) {
  if (exiting) return;
  exiting = true;
  await Promise.race([subscription?.close(), new Promise((resolve) => setTimeout(resolve, CLOSE_BUDGET_MS))]);
  process.exit(code);
}

function fail(error) {
  const message = error instanceof Error ? error.message : String(error);
  log.error('fatal', { err: message });
  send({ type: 'fatal', message });
  void exit(1);
}
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
process.on('disconnect', () => void exit(1)); // the harness is gone: nobody will ever stop us otherwise
process.on('SIGTERM', () => void exit(0));

const counters = () => ({
  applied: subscription.replica.applied,
  lastOffset: subscription.replica.lastOffset,
  endedEarly: subscription.endedEarly,
  syncing: subscription.replica.syncing,
  reconnects: subscription.reconnects,
  skippedRanges: subscription.skippedRanges,
  coveredAfter: subscription.coveredAfter,
  repairedRanges: subscription.replica.repairedRanges,
  ...subscription.staleness?.counters(),
});

const report = () => ({
  ...counters(),
  entries: subscription.replica.entries(),
  latency: subscription.replica.latency,
  lags: subscription.replica.lags,
  resumes: subscription.replica.resumes,
  syncs: subscription.replica.syncs,
  disconnects: subscription.disconnects,
  ...subscription.staleness?.report(),
});

async function digest() {
  const answer = await subscription.requestDigest().catch((error) => ({ error: error.message }));
  if (answer.error !== undefined) return { match: null, error: answer.error };
  const verdict = {
    match: answer.local === answer.digest,
    local: answer.local,
    broker: answer.digest,
    brokerOffset: answer.offset,
    localOffset: answer.localOffset,
  };
  log.info(
    verdict.match ? 'digest matches the broker' : 'digest DIFFERS from the broker: local copy is wrong',
    verdict,
  );
  return verdict;
}

subscription = new Subscription({ init, careful, log, onEnd: (reason) => send({ type: 'ended', reason }) });
// A failure to subscribe is reported as `fatal` (by the handler above) and ends the process before `ready`.
await subscription.start();

serve({
  requests: {
    status: counters,
    gather: () => {
      const usage = process.resourceUsage();
      return {
        report: report(),
        resources: { cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssKb: usage.maxRSS },
      };
    },
    digest,
    versions: () => subscription.replica.versions(),
  },
  phase: (phase) => log.setPhase(phase),
  ending: () => void (subscription.ending = true),
  stop: () => void exit(0),
});
setInterval(() => send({ type: 'progress', counters: counters() }), PROGRESS_MS).unref();
log.info('ready', { careful });
send({ type: 'ready', pid: process.pid });
