import {
  isOfRole,
  type ChildMessage,
  type ConsumerCounters,
  type ConsumerReport,
  type DigestVerdict,
  type LastWrites,
  type OrchestratorCommand,
} from '@state-divergence/protocol';
import { RunError } from '../../model/errors.js';
import type { ChildHandle, Listener } from './child-handle.js';
import { ofRole, type RoleProcess } from './role-process.js';

/** What a pool's member hears of its pool's messages: its own counters and early end, and the pool's failure (its too).
 * */
const concerns = (m: ChildMessage, name: string): boolean =>
  ((m.type === 'progress' || m.type === 'ended') && m.member === name) || m.type === 'fatal';

/**
 * One consumer hosted by a pool process (--pool-size), driven like a consumer process of its own:
 * every request names it (`member`), so it answers with its own counters, report, digest and
 * versions, and the run's per-consumer code does not change. What it cannot do alone is what acts
 * on a whole process: it is never frozen, slowed or killed (a faulted consumer always runs alone),
 * and it lives and dies with its pool, which the run starts, watches, stops and reaps as a child of
 * its own. Its `pid` is its pool's.
 */
export class PoolMember implements ChildHandle<'consumer'> {
  readonly role = 'consumer';
  readonly command = null;
  /** Only a process has a cost: its pool's is the pool's (`processes` lists the pool). */
  readonly resources = undefined;
  readonly port = undefined;
  readonly frozen = false;
  latest: ConsumerCounters | undefined;
  /** "consumer-5 (in pool-1, pid 4121)": how every error names it. */
  readonly who: string;
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly host: RoleProcess<'pool'>,
    readonly name: string,
  ) {
    this.who = `${name} (in ${host.name}, pid ${host.pid})`;
    host.on((m) => {
      if (!concerns(m, name)) return;
      if (m.type === 'progress' && isOfRole<'consumer', 'counters'>(m.counters, 'consumer')) this.latest = m.counters;
      for (const listener of this.listeners) listener(m);
    });
  }

  get pool(): string {
    return this.host.name;
  }

  get pid(): number {
    return this.host.pid;
  }

  get alive(): boolean {
    return this.host.alive;
  }

  get exited(): Promise<string> {
    return this.host.exited;
  }

  private ask() {
    return { name: this.name, who: this.who };
  }

  /**
   * `brokerLost` is this member's. Everything else sent to a consumer concerns its process (a
   * phase, `ending`, `stop`): the pool is told those as a process of its own, once, not once per member.
   */
  send(command: OrchestratorCommand): void {
    if (command.type === 'brokerLost') this.host.send({ type: 'brokerLost', member: this.name });
  }

  async status(timeoutMs: number): Promise<ConsumerCounters> {
    return ofRole<'consumer', 'counters'>(
      await this.host.channel.request('status', timeoutMs, this.ask()),
      'consumer',
      this.who,
    );
  }

  /** Its report; what its pool's process has cost so far comes with it, and is the pool's. */
  async gather(timeoutMs: number): Promise<ConsumerReport> {
    const gathered = await this.host.channel.request('gather', timeoutMs, this.ask());
    this.host.resources = gathered.resources;
    return ofRole<'consumer', 'report'>(gathered.report, 'consumer', this.who);
  }

  digest(timeoutMs: number): Promise<DigestVerdict> {
    return this.host.channel.request('digest', timeoutMs, this.ask());
  }

  versions(timeoutMs: number): Promise<Float64Array> {
    return this.host.channel.request('versions', timeoutMs, this.ask());
  }

  lastWrites(timeoutMs: number): Promise<LastWrites> {
    return this.host.channel.request('lastWrites', timeoutMs, this.ask());
  }

  on(listener: Listener): void {
    this.listeners.add(listener);
  }

  private refuse(what: string): never {
    throw new RunError(
      'E_POOLED',
      `${this.who} cannot be ${what} alone: it shares its process with the other consumers of ${this.host.name}` +
        ` (a faulted consumer always runs in a process of its own)`,
    );
  }

  freeze(): void {
    this.refuse('frozen');
  }

  thaw(): void {
    this.refuse('thawed');
  }

  confirm(): never {
    this.refuse('frozen or thawed');
  }

  stoppedNow(): never {
    this.refuse('frozen');
  }

  kill(): void {
    this.refuse('killed');
  }

  /** Nothing to do alone: it ends when its pool is stopped, by the teardown that stops every process of the run. */
  stop(): Promise<void> {
    return Promise.resolve();
  }
}
