import { ErrorCode, Role, StartKind, type BrokerEndpoint, type ErrorFrame } from '@state-divergence/protocol';
import { errorMessage, RECONNECT_ATTEMPT_MS, reachBrokerAgain, type Logger } from '@state-divergence/runtime';
import { BrokerRefusal, connectToBroker, type BrokerSession } from '@state-divergence/runtime/quic';
import type { StreamFollower, StreamStart } from './stream-follower.js';
import { SubscriptionLog } from './subscription-log.js';

export interface SubscriptionOptions {
  endpoint: BrokerEndpoint;
  name: string;
  logger: Logger;
  /** The orchestrator said the run is over (ChildContext.ending): a stream ending now is not an early end. */
  ending: () => boolean;
  /** The subscription ended for good: reported as an early end, so a broken connection is never mistaken for drops. */
  onEnd: (reason: string) => void;
  /** The mode's start kind (protocol's modes.ts): how a first subscription, and a lost one, begins. */
  subscribeWith: 'latest' | 'snapshot';
  /** The broker keeps a log (ConsumerInit.resumable): a lost subscription resumes from its offset. */
  resumable: boolean;
  /** The broker spoke: every frame of the current subscription, its WELCOME included (the stale signal). */
  heard: () => void;
}

/** How a subscription asks to begin. An offset start belongs to the epoch its offsets came from. */
export type StartPlan = { kind: 'latest' } | { kind: 'snapshot' } | { kind: 'offset'; from: number; epoch: number };

interface Opened {
  session: BrokerSession;
  plan: StartPlan;
}

const HELLO_START = { latest: StartKind.latest, snapshot: StartKind.snapshot, offset: StartKind.offset } as const;
const STREAM_START: Record<StartPlan['kind'], StreamStart> = {
  latest: 'latest',
  snapshot: 'snapshot',
  offset: 'replay',
};
const OUTCOME = { latest: 'latest', snapshot: 'snapshot', offset: 'replayed' } as const;

/**
 * The consumer's subscription, across the broker's disconnects and restarts.
 * - ERROR slowConsumer: what a naive informer does: a new connection, HELLO with the same
 *   name, start `latest`, and carry on with the local copy it has. That is still wrong: what
 *   was published between its last offset and the new WELCOME's head never arrives, and it
 *   records that range.
 * - The broker lost (announced over IPC) or its stream failing: reconnect with backoff and
 *   subscribe as the mode says: latest (lossy, lossless), a snapshot that replaces the copy
 *   (resync), or (durable) the events after its last offset, unless the broker is another
 *   incarnation (a new epoch) or has discarded them (tooOld): then a snapshot.
 */
export class Subscription {
  /** ERROR frames the broker ended a stream with. */
  disconnects = 0;
  reconnects = 0;
  /** In the current epoch: offsets knowingly skipped, and the head before which it saw nothing. */
  readonly skippedRanges: Array<[number, number]> = [];
  coveredAfter = 0;
  readonly log = new SubscriptionLog();
  private session: BrokerSession | null = null;
  /** Bumped at each loss: frames, sessions and reconnection loops of an older generation are stale. */
  private generation = 0;
  private closing = false;
  private ended = false;
  /** Its offsets mean nothing to the broker (another epoch, or discarded): only a snapshot can help. */
  private needSnapshot = false;

  /** `epoch`: the broker incarnation its offsets belong to (a checkpoint's), null before its first WELCOME. */
  constructor(
    private readonly follower: StreamFollower,
    private readonly options: SubscriptionOptions,
    public epoch: number | null,
  ) {}

  /** The first subscription: from the follower's offset if it has an epoch (a checkpoint), else as the mode says. */
  async start(): Promise<void> {
    const opened = await this.open(this.plan(), undefined);
    this.adopt(opened, this.generation);
  }

  write(bytes: Uint8Array): Promise<void> {
    if (this.session === null) return Promise.reject(new Error('not subscribed: the broker is being reached again'));
    return this.session.write(bytes);
  }

  brokerLost(): void {
    this.lose('the orchestrator announced the broker lost', true);
  }

  close(): Promise<void> {
    this.closing = true;
    this.generation += 1;
    const session = this.session;
    this.session = null;
    return session?.close() ?? Promise.resolve();
  }

  private stopped(): boolean {
    return this.closing || this.ended || this.options.ending();
  }

  private plan(): StartPlan {
    if (this.options.subscribeWith === 'latest') return { kind: 'latest' };
    const from = this.follower.resumableOffset;
    if (!this.options.resumable || this.needSnapshot || this.epoch === null || from === null)
      return { kind: 'snapshot' };
    return { kind: 'offset', from, epoch: this.epoch };
  }

  /** One subscription attempt; an offset start the broker cannot serve falls back to a snapshot at once. */
  private async open(plan: StartPlan, timeoutMs: number | undefined): Promise<Opened> {
    const { endpoint, name, logger } = this.options;
    const startOffset = plan.kind === 'offset' ? plan.from : 0;
    let session: BrokerSession;
    try {
      session = await connectToBroker(
        endpoint,
        { role: Role.subscriber, name, start: HELLO_START[plan.kind], startOffset },
        logger,
        timeoutMs,
      );
    } catch (error) {
      const code = error instanceof BrokerRefusal ? error.refusal.code : undefined;
      if (plan.kind !== 'offset' || (code !== ErrorCode.tooOld && code !== ErrorCode.inFuture)) throw error;
      const refusal = (error as BrokerRefusal).refusal;
      // tooOld: retention discarded what it needs (the relist the report counts); inFuture: its offsets are not this
      // broker's.
      if (code === ErrorCode.tooOld) this.log.refusedTooOld(plan.epoch, plan.from, this.follower.lastVersion);
      logger.warn(
        { from: plan.from, code, offset: refusal.offset ?? null },
        `the broker cannot replay from ${plan.from}; subscribing with a snapshot`,
      );
      this.needSnapshot = true;
      return this.open({ kind: 'snapshot' }, timeoutMs);
    }
    if (plan.kind === 'offset' && session.welcome.epoch !== plan.epoch) {
      logger.warn(
        { from: plan.from, epoch: plan.epoch, brokerEpoch: session.welcome.epoch },
        'the broker is another incarnation: its offsets are not ours; subscribing with a snapshot',
      );
      this.needSnapshot = true;
      await session.close(); // before the next HELLO, so the broker has let go of the name
      return this.open({ kind: 'snapshot' }, timeoutMs);
    }
    return { session, plan };
  }

  /** A WELCOME arrived: the follower's bookkeeping starts again if the epoch is new, and the frames flow. */
  private adopt({ session, plan }: Opened, generation: number): void {
    const { headOffset, epoch } = session.welcome;
    const newEpoch = epoch !== this.epoch;
    const start = STREAM_START[plan.kind];
    const skipped = this.follower.begin(start, headOffset, newEpoch);
    if (newEpoch) {
      this.skippedRanges.length = 0;
      this.coveredAfter = start === 'latest' ? headOffset : 0;
    }
    if (skipped !== undefined) this.skippedRanges.push(skipped);
    if (plan.kind === 'snapshot') this.needSnapshot = false;
    this.epoch = epoch;
    this.log.opened({
      epoch,
      head: headOffset,
      from: plan.kind === 'offset' ? plan.from : null,
      outcome: OUTCOME[plan.kind],
    });
    if (start === 'latest' || (start === 'replay' && this.follower.lastOffset >= headOffset)) this.log.caughtUp();
    this.session = session;
    this.options.heard();
    // The first subscription is logged by the consumer ('subscribed'), with its settings.
    if (this.reconnects > 0)
      this.options.logger.info(
        { headOffset, epoch, start, newEpoch, skipped: skipped ?? null, reconnects: this.reconnects },
        'subscribed again',
      );
    this.follow(session, generation);
  }

  /** Feeds every frame of one connection's stream to the follower, until it ends or the broker ends it. */
  private follow(session: BrokerSession, generation: number): void {
    void (async () => {
      for await (const frame of session.frames) {
        if (generation !== this.generation) return;
        this.options.heard();
        if (frame.type === 'error') return this.refused(frame, generation);
        const problem = this.follower.handle(frame);
        if (problem !== undefined) return this.end(problem);
        this.log.frame(frame, this.follower);
      }
      if (generation === this.generation) this.end('the broker closed the stream');
    })().catch((error: unknown) => {
      if (generation === this.generation) this.lose(`stream failed: ${errorMessage(error)}`, false);
    });
  }

  private refused(error: ErrorFrame, generation: number): void {
    this.disconnects += 1;
    if (error.code === ErrorCode.slowConsumer) return void this.slowConsumer(error, generation);
    if (error.code === ErrorCode.tooOld) {
      // A RESUME (or a back-fill) from an offset retention has discarded: only a snapshot can repair
      // the copy. Recorded as a refusal at HELLO is, so its subscriptions say tooOld, then snapshot.
      this.needSnapshot = true;
      const { epoch } = this;
      const [offset, version] = [this.follower.lastOffset, this.follower.lastVersion];
      this.lose(`broker error ${error.code}: ${error.message}`, false); // ends the current subscription's record first
      if (epoch !== null) this.log.refusedTooOld(epoch, offset, version);
      return;
    }
    this.end(`broker error ${error.code}: ${error.message}`);
  }

  /** Today's path, kept: one new subscription at latest, at once (the broker is alive; it only let go of us). */
  private async slowConsumer(error: ErrorFrame, generation: number): Promise<void> {
    const { logger } = this.options;
    logger.warn(
      { code: error.code, message: error.message, lastOffset: this.follower.lastOffset },
      'disconnected as a slow consumer; subscribing again at latest',
    );
    if (generation !== this.generation) return;
    const next = this.drop();
    let opened: Opened;
    try {
      opened = await this.open({ kind: 'latest' }, RECONNECT_ATTEMPT_MS);
    } catch (failure) {
      // A brokerLost that came meanwhile has its own reconnection running: leave it to that one.
      if (next !== this.generation) return;
      return this.end(`could not subscribe again after a slow-consumer disconnect: ${errorMessage(failure)}`);
    }
    if (this.closing || next !== this.generation) return void opened.session.close();
    this.reconnects += 1;
    this.adopt(opened, next);
  }

  /**
   * Ends the current subscription's record and lets go of its session without waiting (a close
   * to a dead or frozen peer waits out QUIC's closing period). Returns the new generation.
   */
  private drop(): number {
    if (this.session !== null) this.log.ended(this.follower.lastOffset, this.follower.lastVersion);
    void this.session?.close();
    this.session = null;
    return ++this.generation;
  }

  /** The broker is gone (announced) or its stream failed: subscribe again with backoff. */
  private lose(reason: string, announced: boolean): void {
    if (this.stopped()) return;
    if (!announced && this.session === null) return; // already reconnecting
    const generation = this.drop();
    const { logger } = this.options;
    logger.warn(
      { reason, announced, lastOffset: this.follower.lastOffset, epoch: this.epoch },
      'subscription lost; subscribing again',
    );
    reachBrokerAgain({
      attempt: () => this.open(this.plan(), RECONNECT_ATTEMPT_MS),
      announced,
      reason,
      idleTimeoutMs: this.options.endpoint.idleTimeoutMs,
      stale: () => this.stopped() || generation !== this.generation,
      logger,
      reached: (opened) => {
        this.reconnects += 1;
        this.adopt(opened, generation);
      },
      gaveUp: (message) => this.end(message),
    });
  }

  private end(reason: string): void {
    // Our own shutdown, or the run's end (every process is being stopped), is not an early end.
    if (this.ended || this.closing || this.options.ending()) return;
    this.ended = true;
    this.options.onEnd(reason);
  }
}
