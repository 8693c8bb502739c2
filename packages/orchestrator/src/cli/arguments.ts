import type { Argv } from 'yargs';
import {
  FSYNC_POLICIES,
  knob,
  KNOBS,
  LOG_LEVELS,
  OVERFLOW_POLICIES,
  PERIODIC_FSYNC_MS,
  type KnobName,
} from '@state-divergence/protocol';
import { DEFAULTS, MODE_CHOICES } from '../model/options.js';
import { OUR_BROKER } from '../model/our-broker.js';

/** How yargs is told of a knob's flag. */
function knobSpec(name: KnobName) {
  const { default: value, describedDefault, describe } = knob(name);
  // Not a default decided per run, nor one --help states in words: an absent flag stays absent.
  return { type: 'number' as const, ...(value !== null && !describedDefault && { default: value }), describe };
}

/** A knob's flag, by its name (protocol's settings.ts declares its default, bounds and text). */
export const knobFlag = <K extends KnobName>(name: K) =>
  ({ [KNOBS[name].flag]: knobSpec(name) }) as { [F in (typeof KNOBS)[K]['flag']]: ReturnType<typeof knobSpec> };

/**
 * The flags of a run, for `orchestrator [run]` and `orchestrator sweep` (which
 * takes --rate or --keys as a comma list instead). yargs only parses and
 * documents; every check and default is normalizeOptions's.
 */
export function runArguments<T>(parser: Argv<T>, sweep = false) {
  const swept = (name: 'rate' | 'keys') =>
    sweep
      ? {
          type: 'string' as const,
          describe: `${knob(name).describe}: a single value, or a comma list to sweep (e.g. 100,400,1600)`,
        }
      : knobSpec(name);
  // A real system is one run, not a sweep: `sweep` does not take --system or --idiom.
  const systems = sweep
    ? {}
    : {
        system: {
          type: 'string' as const,
          default: OUR_BROKER,
          describe:
            `The system under test: ${OUR_BROKER} (our broker, with its --mode), a real system whose server is ` +
            'started here (docs/SYSTEMS.md lists them; an unknown name is refused with the list), or all (every ' +
            'installed one, both idioms, then a table). A real system takes the workload, --stall, --slow, --crash ' +
            '(broker@FROM-TO: its server, SIGKILLed and restarted on the same port and data dir), --partition, ' +
            '--delay, --bandwidth and --reset (through a TCP relay; --loss has no meaning on TCP), --consumers, ' +
            '--json, --report and the live view (--no-tui), and its own knobs as flags (below, each refused with a ' +
            'system that lacks it; with all, set for the systems that have it)',
        },
        idiom: {
          type: 'string' as const,
          describe:
            "With --system NAME: how each consumer keeps its copy, naive (the system's quickstart) or careful " +
            '(what its docs recommend not to miss a change) [default: naive; all: both]',
        },
        'compact-at': {
          type: 'array' as const,
          string: true as const,
          describe:
            "With --system NAME: run the system's compact action (its history compacted up to the current " +
            'revision) at T, seconds since publishing started; repeatable or comma-separated. Refused for a system ' +
            'without one; with all, run for the systems that have one',
        },
        reset: {
          type: 'array' as const,
          string: true as const,
          describe:
            "With --system NAME: destroy both sides of a consumer's TCP connections at T (an RST each way, as a " +
            'NAT or load balancer drops a flow): NAME@T, seconds since publishing started, through a relay in ' +
            'front of it; its client reconnects as it does by itself. Repeatable or comma-separated',
        },
        endpoint: {
          type: 'string' as const,
          describe:
            'With --system NAME: use the server someone already runs at this URL (etcd http[s]://, nats:// or ' +
            "tls://, redis[s]://) instead of starting one; everything under the run's prefix, removed at the end. " +
            'No password in it: credentials come from --credentials or SD_* (docs/SYSTEMS.md)',
        },
        credentials: {
          type: 'string' as const,
          describe:
            "With --endpoint: a KEY=VALUE file of the server's credentials (SD_USERNAME, SD_PASSWORD, SD_TOKEN, " +
            'SD_TLS_CA, SD_TLS_CERT, SD_TLS_KEY: paths to PEM files) [default: those variables of the environment]',
        },
      };
  return parser.options({
    ...systems,
    rate: swept('rate'),
    keys: swept('keys'),
    ...knobFlag('consumers'),
    ...knobFlag('poolSize'),
    ...knobFlag('payload'),
    ...knobFlag('queueCapacity'),
    ...knobFlag('datagramSize'),
    ...knobFlag('coalesceMs'),
    ...knobFlag('duration'),
    mode: {
      type: 'string',
      default: DEFAULTS.mode,
      describe: `${MODE_CHOICES.join(', ')} (both: lossy + lossless; all: every mode)`,
    },
    stall: {
      type: 'array',
      string: true,
      describe:
        "Freeze a consumer: NAME (over [d, 3d), the seed's window) or NAME@FROM-TO, seconds since publishing " +
        'started; repeatable or comma-separated [default: the last consumer]',
    },
    slow: {
      type: 'array',
      string: true,
      describe: 'Throttle a consumer: NAME@FROM-TO[:PCT], stopped PCT % (default 50) of every 100 ms, like a CPU quota',
    },
    crash: {
      type: 'array',
      string: true,
      describe:
        'SIGKILL a consumer at FROM and start a fresh one of the same name at TO: NAME@FROM-TO. broker@FROM-TO ' +
        'crashes the broker (any mode) and starts a new one on the same port at TO; ' +
        ('the publisher and our consumers are told and reconnect. Its window must lie inside publishing: 0 < ' +
          'FROM < TO < when publishing ends (by default one phase after TO); ') +
        'no consumer may restart or join inside it, and not with --consumer-cmd',
    },
    partition: {
      type: 'array',
      string: true,
      describe:
        "Cut a client off the broker: NAME@FROM-TO (or NAME: the seed's window), every datagram dropped both " +
        'ways by a relay between them (with --system NAME: its TCP relay holds the bytes both ways, the ' +
        'connections kept open, and forwards them in order at TO). NAME: a consumer or publisher; repeatable or ' +
        'comma-separated',
    },
    loss: {
      type: 'array',
      string: true,
      describe:
        'Drop datagrams between a client and the broker: NAME@FROM-TO:PCT[~CORR], PCT % (1-100) each way; with ' +
        "~CORR (0-99) each datagram shares the previous one's fate with probability CORR %, else is dropped " +
        "with probability PCT %, so the loss rate stays PCT and drops come in bursts (not netem's correlation " +
        'formula, which drops far less than PCT)',
    },
    delay: {
      type: 'array',
      string: true,
      describe:
        'Hold datagrams between a client and the broker: NAME@FROM-TO:MS[~JITTER], MS (1-10000) ± JITTER ms each way ' +
        '(with --system NAME: each chunk of bytes, in order)',
    },
    bandwidth: {
      type: 'array',
      string: true,
      describe:
        'Cap the link between a client and the broker: NAME@FROM-TO:RATE, at most RATE bytes a second each way ' +
        '(800B, 20KB, 1.5MB; 1 KB = 1000 B; 1KB to 100MB), a token bucket of 50 ms of RATE; the rest queues, up ' +
        'to 250 ms of RATE (at least 4 datagrams), beyond which datagrams are dropped (drop-tail). With --system ' +
        'NAME its TCP relay paces each connection instead and, holding more than that (at least 64 KiB), stops ' +
        'reading the sender, so TCP pushes back. Full speed again at TO. Not drawn by --nemesis random',
    },
    nemesis: {
      type: 'string',
      describe:
        'random: draw the faults from --seed instead of writing them: stalls, slows, consumer crashes, broker ' +
        'restarts (not with --consumer-cmd), partitions, loss, delay of up to 4 consumers ' +
        ("(never the --join-late one) and the publisher's link, 1.5 per phase, each kept only if the schedule " +
          'passes the checks a written one does (never every consumer at once). ') +
        ('Windows lie in [d, 3d), or with --publish-until T in [min(d, T/2), T]. Printed on stderr before the ' +
          'run as the flags that run it again; one schedule for every mode; ') +
        'not with --stall, --slow, --crash, --partition, --loss, --delay or --bandwidth',
    },
    ...knobFlag('staleAfterMs'),
    ...knobFlag('idleTimeoutMs'),
    ...knobFlag('publishUntil'),
    overflow: {
      type: 'string',
      default: DEFAULTS.overflow,
      describe: `What a full queue does in the lossy column: ${OVERFLOW_POLICIES.join(', ')}`,
    },
    ...knobFlag('seed'),
    ...knobFlag('deleteRatio'),
    ...knobFlag('rogueFrames'),
    'consumer-cmd': {
      type: 'array',
      string: true,
      describe:
        'Run a consumer someone else wrote as NAME: NAME=CMD, split like a shell would (no shell runs it); it ' +
        'speaks docs/CONSUMER.md. Repeatable',
    },
    ...knobFlag('readyTimeoutMs'),
    'join-late': {
      type: 'string',
      describe: 'A consumer that subscribes only when the stall starts (snapshot under resync, latest otherwise)',
    },
    fsync: {
      type: 'string',
      default: DEFAULTS.fsync,
      describe:
        `Durable mode: when an append counts as done, ${FSYNC_POLICIES.join(', ')} (periodic: an fsync every ` +
        `${PERIODIC_FSYNC_MS} ms)`,
    },
    ...knobFlag('retention'),
    'data-dir': {
      type: 'string',
      describe:
        "Durable mode: an empty, writable directory for the broker's log and the consumers' checkpoints " +
        '(DIR/<mode>/broker, DIR/<mode>/consumers/<name>) [default: a fresh temporary directory]',
    },
    'keep-data': {
      type: 'boolean',
      default: false,
      describe:
        'Durable mode: leave the data dir in place at the end (its path is printed on stderr) instead of ' +
        'removing what the run wrote',
    },
    tui: { type: 'boolean', default: DEFAULTS.tui, describe: 'Terminal UI (--no-tui for plain text)' },
    json: {
      type: 'boolean',
      default: DEFAULTS.json,
      describe: 'Print one JSON document on stdout instead of the report',
    },
    report: {
      type: 'string',
      describe:
        'Write a self-contained HTML report (cost table, charts with the fault windows shaded, a timeline per ' +
        "mode; with --system NAME: each consumer's verdict and signals over the stall) to this path after the run",
    },
    'log-file': { type: 'string', describe: "Append every process's NDJSON log here [default: stderr]" },
    'log-level': {
      type: 'string',
      describe: `${LOG_LEVELS.join(', ')} [default: info; warn when stderr is a terminal]`,
    },
  });
}
