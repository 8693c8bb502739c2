import { ErrorCode, Role, StartKind, type BrokerEndpoint, type ErrorFrame } from '@state-divergence/protocol';
import { errorMessage, type Logger } from '@state-divergence/runtime';
import { connectToBroker, type BrokerSession } from '@state-divergence/runtime/quic';
import type { StreamFollower } from './stream-follower.js';

export interface SubscriptionOptions {
  endpoint: BrokerEndpoint;
  name: string;
  logger: Logger;
  /** The orchestrator said the run is over (ChildContext.ending): a stream ending now is not an early end. */
  ending: () => boolean;
  /** The subscription ended for good: reported as an early end, so a broken connection is never mistaken for drops. */
  onEnd: (reason: string) => void;
}

/**
 * The consumer's subscription, across the broker's slow-consumer disconnects.
 * On ERROR slowConsumer it does what a naive informer does: a new connection,
 * HELLO with the same name, start `latest`, and carry on with the local copy it
 * has. That is still wrong: what was published between the last offset it had
 * and the new WELCOME's head never arrives, and it records that range.
 */
export class Subscription {
  /** ERROR frames the broker ended a stream with. */
  disconnects = 0;
  reconnects = 0;
  readonly skippedRanges: Array<[number, number]> = [];
  private closing = false;
  private ended = false;

  constructor(
    private session: BrokerSession,
    private readonly follower: StreamFollower,
    private readonly options: SubscriptionOptions,
  ) {
    this.follow(session);
  }

  write(bytes: Uint8Array): Promise<void> {
    return this.session.write(bytes);
  }

  close(): Promise<void> {
    this.closing = true;
    return this.session.close();
  }

  /** Feeds every frame of one connection's stream to the follower, until it ends or the broker ends it. */
  private follow(session: BrokerSession): void {
    void (async () => {
      for await (const frame of session.frames) {
        if (frame.type === 'error') return this.disconnected(frame);
        const problem = this.follower.handle(frame);
        if (problem !== undefined) return this.end(problem);
      }
      this.end('the broker closed the stream');
    })().catch((error: unknown) => this.end(`stream failed: ${errorMessage(error)}`));
  }

  private async disconnected(error: ErrorFrame): Promise<void> {
    this.disconnects += 1;
    if (error.code !== ErrorCode.slowConsumer) return this.end(`broker error ${error.code}: ${error.message}`);
    const { logger, endpoint, name } = this.options;
    logger.warn({ code: error.code, message: error.message, lastOffset: this.follower.lastOffset }, 'disconnected as a slow consumer; subscribing again at latest');
    // Not awaited: closing a connection whose peer saw us frozen waits out QUIC's closing period (tens of seconds).
    void this.session.close();
    let session: BrokerSession;
    try {
      session = await connectToBroker(endpoint, { role: Role.subscriber, name, start: StartKind.latest }, logger);
    } catch (failure) {
      return this.end(`could not subscribe again after a slow-consumer disconnect: ${errorMessage(failure)}`);
    }
    if (this.closing) return void session.close();
    this.session = session;
    this.reconnects += 1;
    const skipped = this.follower.rejoin(session.welcome.headOffset);
    if (skipped !== undefined) this.skippedRanges.push(skipped);
    logger.info({ headOffset: session.welcome.headOffset, skipped: skipped ?? null, reconnects: this.reconnects }, 'subscribed again');
    this.follow(session);
  }

  private end(reason: string): void {
    // Our own shutdown, or the run's end (every process is being stopped), is not an early end.
    if (this.ended || this.closing || this.options.ending()) return;
    this.ended = true;
    this.options.onEnd(reason);
  }
}
