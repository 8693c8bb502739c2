import { isOfRole, type ChildRole, type CountersOf, type DigestVerdict, type InitOf, type LastWrites, type OrchestratorCommand, type ProcessResources, type ReportOf, type RoleMessages } from '@state-divergence/protocol';
import { sleep, type Logger } from '@state-divergence/runtime';
import { RunError } from '../../model/errors.js';
import { ChildChannel } from './channel.js';
import type { ChildHandle, Listener } from './child-handle.js';
import { ProcessGroup } from './process-group.js';
import { startNodeProcess } from './start-process.js';

const READY_TIMEOUT_MS = 15_000;
/** How long a child gets to exit after `stop` before it is SIGKILLed. */
const STOP_GRACE_MS = 1_500;

export interface SpawnOptions<R extends ChildRole> {
  role: R;
  name: string;
  /**
   * The configuration, possibly not known yet (the broker's port, the certificate):
   * the process starts and loads its modules at once, and gets this when it is ready.
   */
  init: InitOf<R> | Promise<InitOf<R>>;
  logger: Logger;
  /** Called as soon as the process exists, so teardown can reach it even while it boots. */
  track?: (child: ChildHandle) => void;
  /** How long booting, and then getting ready, may each take [default 15 s]. */
  readyTimeoutMs?: number;
}

/** A reply of the wrong role is the child's bug, said plainly rather than cast away. */
function ofRole<R extends ChildRole, K extends 'counters' | 'report'>(value: RoleMessages[ChildRole][K], role: R, who: string): RoleMessages[R][K] {
  if (!isOfRole<R, K>(value, role)) throw new RunError('E_IPC', `${who} answered as a ${value.role}, not a ${role}`);
  return value;
}

/** The stop escalation (SIGCONT, `stop` over IPC, SIGKILL) is ours: see `stop` below. */
const startProcess = (role: ChildRole) => startNodeProcess(`@state-divergence/${role}`);

/** One running child: its IPC channel, its process group, and the stop escalation. */
class RoleProcess<R extends ChildRole> implements ChildHandle<R> {
  resources: ProcessResources | undefined;
  port: number | undefined;
  latest: CountersOf<R> | undefined;
  alive = true;
  readonly exited: Promise<string>;
  readonly channel: ChildChannel;
  private readonly group: ProcessGroup;
  private readonly who: string;

  constructor(
    subprocess: ReturnType<typeof startProcess>,
    readonly role: R,
    readonly name: string,
    readonly pid: number,
    private readonly logger: Logger,
  ) {
    this.who = `${name} (pid ${pid})`;
    this.exited = subprocess.then((result) => {
      this.alive = false;
      const how = result.signal ? `killed by ${result.signal}` : `exited with code ${result.exitCode}`;
      logger.info({ child: name, childPid: pid, how }, 'child exited');
      return how;
    });
    this.group = new ProcessGroup(pid);
    this.channel = new ChildChannel(subprocess, this.who, this.exited, logger);
    this.channel.on((m) => {
      if (m.type === 'progress' && isOfRole<R, 'counters'>(m.counters, role)) this.latest = m.counters;
    });
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

  kill(): void {
    this.group.kill();
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    // A stopped process cannot act on anything but SIGKILL: continue it first.
    this.group.thaw();
    this.send({ type: 'stop' });
    const gone = await Promise.race([this.exited.then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
    if (gone) return;
    this.logger.warn({ child: this.name, childPid: this.pid }, `no exit within ${STOP_GRACE_MS} ms of stop; SIGKILL`);
    this.group.kill();
    await Promise.race([this.exited, sleep(STOP_GRACE_MS)]);
  }
}

/**
 * Starts one child process, waits until it has booted (listening on IPC),
 * sends it its init message over IPC (never argv), and resolves once it says
 * `ready`. Listening starts before the child can speak: an IPC message sent
 * before the other side listens is lost.
 */
export async function spawnRole<R extends ChildRole>(options: SpawnOptions<R>): Promise<ChildHandle<R>> {
  const subprocess = startProcess(options.role);
  if (subprocess.pid === undefined) {
    const result = await subprocess;
    throw new RunError('E_SPAWN', `${options.name} could not be started: ${result.message ?? 'no pid'}`);
  }
  const child = new RoleProcess(subprocess, options.role, options.name, subprocess.pid, options.logger);
  options.track?.(child);
  try {
    const timeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
    await child.channel.waitFor((m) => (m.type === 'booted' ? m : undefined), timeoutMs, '`booted`');
    await child.channel.configure(await options.init);
    const ready = await child.channel.waitFor((m) => (m.type === 'ready' ? m : undefined), timeoutMs, '`ready`');
    child.port = ready.port;
    return child;
  } catch (error) {
    await child.stop();
    throw error;
  }
}
