import type { Argv } from 'yargs';
import { FSYNC_POLICIES, LOG_LEVELS, OVERFLOW_POLICIES, PERIODIC_FSYNC_MS } from '@state-divergence/protocol';
import { DEFAULTS, MAX_COALESCE_MS, MAX_CONSUMERS, MAX_DATAGRAM_SIZE, MIN_DATAGRAM_SIZE, MODE_CHOICES } from '../model/options.js';

/**
 * The flags of a run, for `orchestrator [run]` and `orchestrator sweep` (which
 * takes --rate or --keys as a comma list instead). yargs only parses and
 * documents; every check and default is normalizeOptions's.
 */
export function runArguments<T>(parser: Argv<T>, sweep = false) {
  const swept = (flag: 'rate' | 'keys', describe: string) =>
    sweep ? { type: 'string' as const, describe: `${describe}: a single value, or a comma list to sweep (e.g. 100,400,1600)` } : { type: 'number' as const, default: DEFAULTS[flag], describe };
  return parser.options({
    rate: swept('rate', 'Changes published per second'),
    keys: swept('keys', 'Size of the config keyspace'),
    consumers: { type: 'number', default: DEFAULTS.consumers, describe: `Consumer count; must be at least 2 (at most ${MAX_CONSUMERS})` },
    'pool-size': { type: 'number', describe: 'Healthy consumers hosted per process, each with its own connection, copy and verdict (a faulted, late or --consumer-cmd consumer always runs alone); 1: a process each [default: one pool per core but one, left to the broker: on 2 cores, one pool]' },
    payload: { type: 'number', default: DEFAULTS.payload, describe: 'Payload bytes per change' },
    'queue-capacity': { type: 'number', default: DEFAULTS.queueCapacity, describe: 'Subscriber queue depth at the broker' },
    'datagram-size': {
      type: 'number',
      default: DEFAULTS.datagramSize,
      describe: `Largest QUIC datagram, ${MIN_DATAGRAM_SIZE}-${MAX_DATAGRAM_SIZE} bytes. Above ~1,450 it exists only on loopback: faster (the cost is per datagram), and a frozen consumer's transport absorbs ~12x more before the broker's queue fills`,
    },
    'coalesce-ms': {
      type: 'number',
      default: DEFAULTS.coalesceMs,
      describe: `How long the broker holds a subscriber's events for more before writing them, 0-${MAX_COALESCE_MS} ms (0: the next turn of its event loop). Fewer, fuller datagrams cost less CPU per event (the cost is per datagram) and add up to this much latency`,
    },
    duration: { type: 'number', default: DEFAULTS.duration, describe: 'Seconds per phase; a run is 5 phases' },
    mode: { type: 'string', default: DEFAULTS.mode, describe: `${MODE_CHOICES.join(', ')} (both: lossy + lossless; all: every mode)` },
    stall: { type: 'array', string: true, describe: 'Freeze a consumer: NAME (over [d, 3d), the seed\'s window) or NAME@FROM-TO, seconds since publishing started; repeatable or comma-separated [default: the last consumer]' },
    slow: { type: 'array', string: true, describe: 'Throttle a consumer: NAME@FROM-TO[:PCT], stopped PCT % (default 50) of every 100 ms, like a CPU quota' },
    crash: {
      type: 'array',
      string: true,
      describe:
        'SIGKILL a consumer at FROM and start a fresh one of the same name at TO: NAME@FROM-TO. broker@FROM-TO crashes the broker (any mode) and starts a new one on the same port at TO; ' +
        'the publisher and our consumers are told and reconnect. Its window must lie inside publishing: 0 < FROM < TO < when publishing ends (by default one phase after TO); ' +
        'no consumer may restart or join inside it, and not with --consumer-cmd',
    },
    partition: {
      type: 'array',
      string: true,
      describe: 'Cut a client off the broker: NAME@FROM-TO (or NAME: the seed\'s window), every datagram dropped both ways by a relay between them. NAME: a consumer or publisher; repeatable or comma-separated',
    },
    loss: { type: 'array', string: true, describe: 'Drop datagrams between a client and the broker: NAME@FROM-TO:PCT[~CORR], PCT % (1-100) each way; with ~CORR (0-99) each datagram shares the previous one\'s fate with probability CORR %, else is dropped with probability PCT %, so the loss rate stays PCT and drops come in bursts (not netem\'s correlation formula, which drops far less than PCT)' },
    delay: { type: 'array', string: true, describe: 'Hold datagrams between a client and the broker: NAME@FROM-TO:MS[~JITTER], MS (1-10000) ± JITTER ms each way' },
    nemesis: {
      type: 'string',
      describe:
        'random: draw the faults from --seed instead of writing them: stalls, slows, consumer crashes, broker restarts (not with --consumer-cmd), partitions, loss, delay of up to 4 consumers ' +
        '(never the --join-late one) and the publisher\'s link, 1.5 per phase, each kept only if the schedule passes the checks a written one does (never every consumer at once). ' +
        'Windows lie in [d, 3d), or with --publish-until T in [min(d, T/2), T]. Printed on stderr before the run as the flags that run it again; one schedule for every mode; ' +
        'not with --stall, --slow, --crash, --partition, --loss or --delay',
    },
    'stale-after': { type: 'number', describe: 'Resync, durable: a consumer that hears nothing from the broker this long (ms, 1-60000) counts itself stale [default: three heartbeats, 750]' },
    'idle-timeout': { type: 'number', describe: 'QUIC idle timeout, seconds: a partition longer than it kills the connection and the client reconnects; must outlast the longest stall [default: 2 x the longest stall + 10]' },
    'publish-until': { type: 'number', describe: 'Keep publishing until T seconds (so changes go on after the faults and churn can repair) [default: when the last fault ends]' },
    overflow: { type: 'string', default: DEFAULTS.overflow, describe: `What a full queue does in the lossy column: ${OVERFLOW_POLICIES.join(', ')}` },
    seed: { type: 'number', default: DEFAULTS.seed, describe: 'PRNG seed: the same seed gives the same changes (and with --nemesis random the same faults)' },
    'delete-ratio': { type: 'number', default: DEFAULTS.deleteRatio, describe: 'Fraction of changes that delete their key' },
    'rogue-frames': { type: 'number', default: DEFAULTS.rogueFrames, describe: 'A hostile client sends this many bad frames during the run (wrong pin, wrong token, garbage); the outcome must not change' },
    'consumer-cmd': { type: 'array', string: true, describe: 'Run a consumer someone else wrote as NAME: NAME=CMD, split like a shell would (no shell runs it); it speaks docs/CONSUMER.md. Repeatable' },
    'ready-timeout': { type: 'number', describe: 'Seconds each process may take to start and say ready before it counts as stuck (a foreign consumer that never says ready is then left out) [default: 15 + 0.5 per process]' },
    'join-late': { type: 'string', describe: 'A consumer that subscribes only when the stall starts (snapshot under resync, latest otherwise)' },
    fsync: { type: 'string', default: DEFAULTS.fsync, describe: `Durable mode: when an append counts as done, ${FSYNC_POLICIES.join(', ')} (periodic: an fsync every ${PERIODIC_FSYNC_MS} ms)` },
    retention: { type: 'number', describe: 'Durable mode: most events the log keeps, at least 1 [default: every event of the run]' },
    'data-dir': { type: 'string', describe: "Durable mode: an empty, writable directory for the broker's log and the consumers' checkpoints (DIR/<mode>/broker, DIR/<mode>/consumers/<name>) [default: a fresh temporary directory]" },
    'keep-data': { type: 'boolean', default: false, describe: 'Durable mode: leave the data dir in place at the end (its path is printed on stderr) instead of removing what the run wrote' },
    tui: { type: 'boolean', default: DEFAULTS.tui, describe: 'Terminal UI (--no-tui for plain text)' },
    json: { type: 'boolean', default: DEFAULTS.json, describe: 'Print one JSON document on stdout instead of the report' },
    report: { type: 'string', describe: 'Write a self-contained HTML report (cost table, charts with the fault windows shaded, a timeline per mode) to this path after the run' },
    'log-file': { type: 'string', describe: "Append every process's NDJSON log here [default: stderr]" },
    'log-level': { type: 'string', describe: `${LOG_LEVELS.join(', ')} [default: info; warn when stderr is a terminal]` },
  });
}
