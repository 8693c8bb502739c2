import type {
  ChildMessage,
  ChildRole,
  CountersOf,
  DigestVerdict,
  LastWrites,
  OrchestratorCommand,
  ProcessResources,
  ReportOf,
} from '@state-divergence/protocol';
import type { Confirmation, Wanted } from './confirm-state.js';

export type Listener = (message: ChildMessage) => void;

/** One child process of a run, as the orchestrator drives it. `R` is its role: replies are narrowed by it. */
// `out`: a consumer's handle is a handle (the role only narrows what it returns).
export interface ChildHandle<out R extends ChildRole = ChildRole> {
  readonly name: string;
  readonly role: R;
  /** The pid of its process: a pool's member's is its pool's. */
  readonly pid: number;
  /**
   * The pool process hosting this consumer (--pool-size), by name; null: a process of its own.
   * A pooled consumer shares its pool's fate and cannot be frozen or killed alone.
   */
  readonly pool: string | null;
  /** The command line of a consumer someone else wrote (--consumer-cmd); null for one of ours. */
  readonly command: string | null;
  /** CPU and peak memory, as of the last gather. */
  readonly resources: ProcessResources | undefined;
  /** The broker's listening port, from its `ready`. */
  readonly port: number | undefined;
  /** Latest counters the child pushed (a frozen child's stay at what it last said). */
  readonly latest: CountersOf<R> | undefined;
  /** SIGSTOP sent and no SIGCONT since (whether it has taken effect yet is `confirm`'s to say). */
  readonly frozen: boolean;
  readonly alive: boolean;
  /** Resolves when the process has exited, with how. */
  readonly exited: Promise<string>;
  send(command: OrchestratorCommand): void;
  status(timeoutMs: number): Promise<CountersOf<R>>;
  gather(timeoutMs: number): Promise<ReportOf<R>>;
  digest(timeoutMs: number): Promise<DigestVerdict>;
  versions(timeoutMs: number): Promise<Float64Array>;
  lastWrites(timeoutMs: number): Promise<LastWrites>;
  on(listener: Listener): void;
  /** SIGSTOP and SIGCONT to its process group: they only ask; see `confirm`. */
  freeze(): void;
  thaw(): void;
  /** Waits (bounded) until /proc shows every process of its group stopped (state T), or none; or that it exited first.
   * */
  confirm(wanted: Wanted): Promise<Confirmation>;
  /** One read of its own state, no wait: stopped (T) right now? */
  stoppedNow(): boolean;
  /** SIGCONT, ask over IPC, wait a bounded time, SIGKILL. Never throws. */
  stop(): Promise<void>;
  /** Immediate: SIGCONT and SIGKILL to the process group (for a second Ctrl-C). */
  kill(): void;
}

/** Tracks every live child of the whole invocation, so any exit path can reap them. */
export type ChildRegistry = Set<ChildHandle>;
