import {
  isOfRole,
  type ChildRole,
  type CountersOf,
  type DigestVerdict,
  type LastWrites,
  type OrchestratorCommand,
  type ProcessResources,
  type ReportOf,
  type RoleMessages,
} from '@state-divergence/protocol';
import type { Logger } from '@state-divergence/runtime';
import { RunError } from '../../model/errors.js';
import { ChildChannel, type ContractBreach } from './channel.js';
import type { ChildHandle, Listener } from './child-handle.js';
import type { Confirmation, Wanted } from './confirm-state.js';
import { ProcessGroup } from './process-group.js';
import type { StartedProcess } from './started-process.js';

/** How long a child gets to exit after `stop` (and a foreign one after SIGTERM) before it is SIGKILLed. */
export const STOP_GRACE_MS = 1_500;

/** A reply of the wrong role is the child's bug, said plainly rather than cast away. */
export function ofRole<R extends ChildRole, K extends 'counters' | 'report'>(
  value: RoleMessages[ChildRole][K],
  role: R,
  who: string,
): RoleMessages[R][K] {
  if (!isOfRole<R, K>(value, role)) throw new RunError('E_IPC', `${who} answered as a ${value.role}, not a ${role}`);
  return value;
}

/** A foreign consumer's name says so, with its command: "consumer-3 (foreign: node examples/consumer-js/main.js)". */
export const describeChild = (name: string, pid: number, command: string | null): string =>
  command === null ? `${name} (pid ${pid})` : `${name} (foreign: ${command})`;

/** One running child: its IPC channel, its process group, and the stop escalation. */
export class RoleProcess<R extends ChildRole> implements ChildHandle<R> {
  resources: ProcessResources | undefined;
  port: number | undefined;
  latest: CountersOf<R> | undefined;
  alive = true;
  /** A process of its own, never a pool's member (pool-member.ts). */
  readonly pool = null;
  readonly exited: Promise<string>;
  readonly channel: ChildChannel;
  readonly who: string;
  private readonly group: ProcessGroup;
  private stopping: Promise<void> | undefined;

  constructor(
    started: StartedProcess & { pid: number },
    readonly role: R,
    readonly name: string,
    private readonly logger: Logger,
    /** The command line of a consumer someone else wrote; null for ours. */
    readonly command: string | null = null,
    private readonly breach?: ContractBreach,
  ) {
    this.who = describeChild(name, started.pid, command);
    this.exited = started.ended.then(({ how }) => {
      this.alive = false;
      logger.info({ child: name, childPid: started.pid, how }, 'child exited');
      return how;
    });
    this.group = new ProcessGroup(started.pid);
    this.channel = new ChildChannel(started.ipc, this.who, this.exited, logger, breach);
    this.channel.on((m) => {
      if (m.type === 'progress' && isOfRole<R, 'counters'>(m.counters, role)) this.latest = m.counters;
    });
  }

  get pid(): number {
    return this.group.pid;
  }

  get frozen(): boolean {
    return this.group.frozen;
  }

  send(command: OrchestratorCommand): void {
    if (this.alive) this.channel.send(command);
  }

  async status(timeoutMs: number): Promise<CountersOf<R>> {
    return ofRole<R, 'counters'>(await this.channel.request('status', timeoutMs), this.role, this.who);
  }

  async gather(timeoutMs: number): Promise<ReportOf<R>> {
    const gathered = await this.channel.request('gather', timeoutMs);
    this.resources = gathered.resources;
    return ofRole<R, 'report'>(gathered.report, this.role, this.who);
  }

  digest(timeoutMs: number): Promise<DigestVerdict> {
    return this.channel.request('digest', timeoutMs);
  }

  versions(timeoutMs: number): Promise<Float64Array> {
    return this.channel.request('versions', timeoutMs);
  }

  lastWrites(timeoutMs: number): Promise<LastWrites> {
    return this.channel.request('lastWrites', timeoutMs);
  }

  on(listener: Listener): void {
    this.channel.on(listener);
  }

  freeze(): void {
    this.group.freeze();
  }

  thaw(): void {
    this.group.thaw();
  }

  confirm(wanted: Wanted): Promise<Confirmation> {
    return this.group.confirm(wanted);
  }

  stoppedNow(): boolean {
    return this.group.stoppedNow();
  }

  kill(): void {
    this.group.kill();
  }

  /** Once, however many callers ask (a failed spawn and the teardown may both). */
  stop(): Promise<void> {
    this.stopping ??= this.escalate();
    return this.stopping;
  }

  /**
   * True once the process has exited, false after `withinMs`. The timer is cleared either way: a
   * child that exits at once leaves nothing pending behind its stop (which would keep a test
   * runner, or any library caller, alive for the rest of the grace period).
   */
  private async gone(withinMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), withinMs);
    });
    try {
      return await Promise.race([this.exited.then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * SIGCONT (a stopped process cannot act on anything but SIGKILL), `stop` over
   * IPC, then SIGKILL. A foreign consumer may not know `stop`: it gets SIGTERM
   * first, and being SIGKILLed is a contract failure it is told of in the report.
   */
  private async escalate(): Promise<void> {
    if (!this.alive) return;
    this.group.thaw();
    this.send({ type: 'stop' });
    if (await this.gone(STOP_GRACE_MS)) return;
    if (this.command !== null) {
      this.group.signal('SIGTERM');
      if (await this.gone(STOP_GRACE_MS)) return;
      this.breach?.(
        `${this.who} did not exit within ${STOP_GRACE_MS / 1000} s of \`stop\`, nor within ` +
          `${STOP_GRACE_MS / 1000} s of SIGTERM: it was killed with SIGKILL`,
      );
    }
    this.logger.warn({ child: this.name, childPid: this.pid }, `no exit within ${STOP_GRACE_MS} ms of stop; SIGKILL`);
    this.group.kill();
    await this.gone(STOP_GRACE_MS);
  }
}
