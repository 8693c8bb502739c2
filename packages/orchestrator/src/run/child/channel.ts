import {
  childMessageProblem,
  isChildMessage,
  readForeignMessage,
  type ChildInit,
  type ChildMessage,
  type ForeignRead,
  type OrchestratorCommand,
  type RequestKind,
  type RequestReplies,
} from '@state-divergence/protocol';
import { withDeadline, type Logger } from '@state-divergence/runtime';
import { RunError } from '../../model/errors.js';
import type { Listener } from './child-handle.js';
import { UnreadableLine } from './json-lines.js';

/** What the channel needs of a child's IPC: execa's methods for ours, JSON lines for a foreign consumer. */
export interface IpcSubprocess {
  getEachMessage(): AsyncIterable<unknown>;
  sendMessage(message: object): Promise<void>;
}

/** Picks the value out of the reply to request `id`, typed by its kind: replies narrow, they are not cast. */
const REPLY_VALUE: { [K in RequestKind]: (m: ChildMessage, id: number) => RequestReplies[K] | undefined } = {
  status: (m, id) => (m.type === 'reply' && m.id === id && m.kind === 'status' ? m.value : undefined),
  gather: (m, id) => (m.type === 'reply' && m.id === id && m.kind === 'gather' ? m.value : undefined),
  digest: (m, id) => (m.type === 'reply' && m.id === id && m.kind === 'digest' ? m.value : undefined),
  versions: (m, id) => (m.type === 'reply' && m.id === id && m.kind === 'versions' ? m.value : undefined),
  lastWrites: (m, id) => (m.type === 'reply' && m.id === id && m.kind === 'lastWrites' ? m.value : undefined),
};

/** Told of every way a foreign consumer broke the child contract (docs/CONSUMER.md), as a sentence naming it. */
export type ContractBreach = (failure: string) => void;

/** Our own children's messages are checked for shape; a foreign consumer's are read field by field from JSON. */
function readOwn(raw: unknown): ForeignRead {
  return isChildMessage(raw)
    ? { ok: true, message: raw }
    : { ok: false, problem: `sent a malformed message: ${childMessageProblem(raw) ?? 'unreadable'}` };
}
const readForeign = (raw: unknown): ForeignRead =>
  raw instanceof UnreadableLine ? { ok: false, problem: raw.problem } : readForeignMessage(raw);

/**
 * The IPC channel to one child: every message it sends goes to the listeners
 * (checked for shape first), and a request is matched to its reply by id.
 * Every wait ends: on the reply, on a `refused` or `fatal`, on the child's exit,
 * or at its deadline. A foreign consumer's malformed reply fails its request at
 * once, saying where it is wrong, and every malformed message it sends is a
 * contract breach.
 */
export class ChildChannel {
  private readonly listeners = new Set<Listener>();
  /** Rejects a pending request whose reply arrived malformed, by request id. */
  private readonly failedReplies = new Map<number, (error: Error) => void>();
  /** Rejecters of the waits in progress, told when the child exits. */
  private readonly waitingForExit = new Set<(how: string) => void>();
  private lastId = 0;
  /** Its init was sent (see send). */
  private configured = false;

  constructor(
    private readonly subprocess: IpcSubprocess,
    /** "consumer-3 (pid 4121)": how every error names the child. */
    private readonly who: string,
    private readonly exited: Promise<string>,
    private readonly logger: Logger,
    /** Set for a foreign consumer: its messages are JSON to be read, and what breaks the contract is reported here. */
    private readonly breach?: ContractBreach,
  ) {
    // One handler on `exited` for every wait: a handler per request would keep each reply
    // (a versions array per live-view sample) reachable until the child exits.
    void this.exited.then((how) => {
      for (const onExit of this.waitingForExit) onExit(how);
    });
    void this.pump();
  }

  private async pump(): Promise<void> {
    const read = this.breach ? readForeign : readOwn;
    try {
      for await (const raw of this.subprocess.getEachMessage()) {
        const message = read(raw);
        if (message.ok) for (const listener of this.listeners) listener(message.message);
        else this.malformed(raw, message);
      }
    } catch {
      // The channel closed with the process; `exited` tells everyone waiting.
    }
  }

  private malformed(raw: unknown, read: Extract<ForeignRead, { ok: false }>): void {
    if (!this.breach)
      return void this.logger.warn({ child: this.who, message: raw }, 'ignored a malformed IPC message');
    const failure = `${this.who} ${read.problem}`;
    this.breach(failure); // logged by whoever keeps the record (one line per failure)
    if (read.request) this.failedReplies.get(read.request.id)?.(new RunError('E_CONTRACT', failure));
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Fire and forget; a send that fails is logged, since the child may be mid-exit. execa throws
   * synchronously once the channel is closed (the child just died): that must not escape either,
   * or a request made at that instant would throw after creating its reply promise, and that
   * promise's rejection (the child's exit) would reach no one.
   */
  send(message: OrchestratorCommand): void {
    // A child still booting reads its init first and takes anything else for a bad init: it is told
    // everything it needs in its init, so a phase or `ending` meant for the running ones is not for
    // it (the review saw "init.role is missing" from a broker booting when Ctrl-C came). `stop` is.
    if (!this.configured && message.type !== 'stop') return;
    const failed = (error: unknown) =>
      this.logger.warn({ child: this.who, type: message.type, err: error }, 'IPC send failed');
    try {
      this.subprocess.sendMessage(message).catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  /** Sends the init message; a failure fails the spawn. */
  async configure(init: ChildInit): Promise<void> {
    this.configured = true; // IPC is ordered: every command sent from now on arrives after the init
    await this.subprocess.sendMessage(init).catch((error: unknown) => {
      throw new RunError('E_IPC', `${this.who} could not be sent its configuration: ${(error as Error).message}`, {
        cause: error,
      });
    });
  }

  /**
   * Resolves with the first message `pick` accepts; rejects if `pick` throws, or when `failed` does.
   * `who`: how its errors name the one waited for (a pool's member, by default the child).
   */
  waitFor<T>(
    pick: (m: ChildMessage) => T | undefined,
    timeoutMs: number,
    what: string,
    failed?: Promise<never>,
    who = this.who,
  ): Promise<T> {
    let off: () => void = () => {};
    const arrived = new Promise<T>((resolve, reject) => {
      failed?.catch(reject);
      off = this.on((m) => {
        let value: T | undefined;
        try {
          value = pick(m);
        } catch (error) {
          return reject(error); // e.g. the request was refused
        }
        if (value !== undefined) resolve(value);
        else if (m.type === 'fatal') reject(new RunError('E_CHILD_FATAL', `${who} failed: ${m.message}`));
      });
      const onExit = (how: string) =>
        reject(new RunError('E_CHILD_EXIT', `${who} ${how} while the orchestrator waited for ${what}`));
      this.waitingForExit.add(onExit);
      const stopWaiting = off;
      off = () => {
        stopWaiting();
        this.waitingForExit.delete(onExit);
      };
    });
    return withDeadline(arrived, timeoutMs, `${who} sent no ${what} within ${timeoutMs / 1000} s; see its log`).finally(
      off,
    );
  }

  /**
   * One request, one reply, typed by the request's kind. `member`: a pool's consumer that must
   * answer, and how errors name it (`who`); absent: the child answers for itself.
   */
  request<K extends RequestKind>(
    kind: K,
    timeoutMs: number,
    member?: { name: string; who: string },
  ): Promise<RequestReplies[K]> {
    const who = member?.who ?? this.who;
    if (!this.configured)
      return Promise.reject(
        new RunError('E_REFUSED', `${who} cannot serve a ${kind} request: it has not been configured yet`),
      );
    const id = ++this.lastId;
    const read = REPLY_VALUE[kind];
    const failed = new Promise<never>((_, reject) => this.failedReplies.set(id, reject));
    failed.catch(() => {}); // observed by waitFor; a request that ends otherwise never rejects it
    const reply = this.waitFor(
      (m) => {
        if (m.type === 'refused' && m.id === id)
          throw new RunError('E_REFUSED', `${who} cannot serve a ${kind} request: ${m.message}`);
        return read(m, id);
      },
      timeoutMs,
      `${kind} reply`,
      failed,
      who,
    ).finally(() => this.failedReplies.delete(id));
    this.send(
      member === undefined ? { type: 'request', id, kind } : { type: 'request', id, kind, member: member.name },
    );
    return reply;
  }
}
