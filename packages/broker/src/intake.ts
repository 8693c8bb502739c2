import type { Change } from '@state-divergence/protocol';
import { errorMessage } from '@state-divergence/runtime';
import type { BrokerLog } from './log-port.js';
import type { Topic } from './topic.js';

/** The log failed to store a change: the publish fails, and no later change is accepted by this broker. */
export class StorageFailure extends Error {}

/**
 * Where PUBLISH frames go: the Topic directly, or the log first. Either way a change is
 * acknowledged only once `accept`'s promise resolved (or at once, when it returns undefined).
 */
export interface Intake {
  /** The highest version accepted so far, committed or not: a PUBLISH must exceed it (publish-rules.ts). */
  readonly highestVersion: number;
  /**
   * Takes one change (its PUBLISH body, verbatim). Undefined: it is committed already;
   * otherwise the promise resolves once it is (fanned out, in the table), or rejects with
   * a StorageFailure.
   */
  accept(change: Change, body: Uint8Array): Promise<void> | undefined;
  /** Resolves once everything accepted so far is committed or has failed. Never rejects. */
  settled(): Promise<void>;
}

/** Without a log: committing is applying and fanning out, at once. */
export function memoryIntake(topic: Topic): Intake {
  return {
    get highestVersion() {
      return topic.highestVersion;
    },
    accept: (change, body) => {
      topic.publish(change, body);
      return undefined;
    },
    settled: () => Promise.resolve(),
  };
}

/**
 * Append, then fan out, then acknowledge. The offset is assigned at once (the next change's
 * refusal rules and offset depend on it); the Topic sees the change only when its append
 * resolved, and appends resolve in order, so the Topic commits in offset order. After a
 * storage error nothing more is committed, even an append the store took later: a change
 * the publisher was told failed must not reach a subscriber, and offsets must stay gap-free.
 */
export class LogIntake implements Intake {
  private assigned: number;
  private highest: number;
  private failure: StorageFailure | undefined;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly topic: Topic,
    private readonly log: Pick<BrokerLog, 'append'>,
  ) {
    this.assigned = topic.headOffset;
    this.highest = topic.highestVersion;
  }

  get highestVersion(): number {
    return this.highest;
  }

  accept(change: Change, body: Uint8Array): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const offset = ++this.assigned;
    this.highest = change.version;
    let appended: Promise<void>;
    try {
      appended = this.log.append(offset, change.key, body);
    } catch (error) {
      appended = Promise.reject(error);
    }
    const committed = appended.then(
      () => {
        if (this.failure !== undefined) throw this.failure;
        this.topic.commit(offset, change, body);
      },
      (error: unknown) => {
        this.failure ??= new StorageFailure(
          `the log could not store offset ${offset}: ${errorMessage(error)}; this broker accepts no more changes`,
        );
        throw this.failure;
      },
    );
    this.tail = committed.catch(() => {});
    return committed;
  }

  settled(): Promise<void> {
    return this.tail;
  }
}
