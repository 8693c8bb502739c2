// One subscription to the broker over QUIC, across slow-consumer disconnects:
// connect with the pinned certificate, HELLO with the token, read frames, feed
// the replica, and answer digest checks.

import { randomFillSync } from 'node:crypto';
import { QUICClient } from '@matrixai/quic';
import { Replica } from './replica.js';
import { Staleness } from './stale.js';
import { Deframer, digestRequest, hello, resume, SLOW_CONSUMER, START } from './wire.js';

const CONNECT_TIMEOUT_MS = 10_000;
const DIGEST_TIMEOUT_MS = 5_000;

// The QUIC library logs through the logger it is given; without one it prints INFO lines on every connect.
const quiet = { getChild: () => quiet, debug() {}, info() {}, warn() {}, error() {} };

const within = (promise, ms, what) =>
  Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms).unref()),
  ]);

/** A verified QUIC connection with its one stream, admitted by the broker (WELCOME read). */
async function connect(broker, helloFrame) {
  const client = await within(
    QUICClient.createQUICClient({
      host: broker.host,
      port: broker.port,
      serverName: 'localhost', // the certificate names localhost; IP addresses are not matched
      crypto: { ops: { randomBytes: async (data) => void randomFillSync(new Uint8Array(data)) } },
      config: {
        verifyPeer: true,
        ca: broker.caPem,
        maxIdleTimeout: broker.idleTimeoutMs,
        // Both ends must agree, or the connection silently stays at the library's 1,350 bytes.
        maxSendUdpPayloadSize: broker.datagramBytes,
        maxRecvUdpPayloadSize: broker.datagramBytes,
      },
      logger: quiet,
    }).catch((error) => {
      // The library's errors often carry only a name (ErrorQUICConnectionLocalTLS: the pin did not match).
      throw new Error(
        (
          `no QUIC connection to the broker at ${broker.host}:${broker.port}: ${error?.name ?? 'Error'} ` +
          `${error?.message ?? ''}`
        ).trim(),
      );
    }),
    CONNECT_TIMEOUT_MS,
    'no QUIC handshake with the broker',
  );
  const stream = client.connection.newStream('bidi');
  const writer = stream.writable.getWriter();
  const connection = {
    reader: stream.readable.getReader(),
    deframer: new Deframer(),
    write: (bytes) => writer.write(bytes),
    // Forceful: a graceful close after a stall waits out QUIC's closing period (tens of seconds).
    close: () => client.destroy({ force: true }).catch(() => {}),
  };
  await connection.write(helloFrame); // the broker learns of the stream only when bytes arrive
  const first = await within(nextFrame(connection), CONNECT_TIMEOUT_MS, 'no WELCOME');
  if (first?.type !== 'welcome') {
    await connection.close();
    throw new Error(`the broker refused us: ${first?.type === 'error' ? first.message : 'the stream ended'}`);
  }
  return { ...connection, head: first.head };
}

async function nextFrame(connection) {
  for (;;) {
    const frame = connection.deframer.next();
    if (frame !== undefined) return frame;
    const { value, done } = await connection.reader.read();
    if (done) return undefined;
    connection.deframer.push(value);
  }
}

export class Subscription {
  constructor({ init, careful, log, onEnd }) {
    Object.assign(this, { init, careful, log, onEnd });
    this.disconnects = 0;
    this.reconnects = 0;
    this.skippedRanges = [];
    this.endedEarly = null;
    this.closing = false;
    /** The orchestrator said the run is over (`ending`): a stream that ends now is not an early end. */
    this.ending = false;
    this.digestWaiters = [];
  }

  #hello(start, startOffset = 0) {
    return hello({ name: this.init.name, start, startOffset, token: this.init.broker.token });
  }

  async start() {
    const start = this.careful ? START.snapshot : START.latest;
    this.connection = await connect(this.init.broker, this.#hello(start));
    // Only where the broker speaks when idle (null in lossy and lossless: silence means nothing there).
    this.staleness = this.init.staleAfterMs == null ? null : new Staleness(this.init.staleAfterMs);
    // What we could have seen: a latest subscriber misses everything up to WELCOME's head.
    this.coveredAfter = this.careful ? 0 : this.connection.head;
    this.replica = new Replica({
      careful: this.careful,
      startOffset: this.connection.head,
      awaitingSnapshot: this.careful,
      askResume: (fromOffset) => {
        this.log.info('gap in offsets; asking for a resume', { fromOffset });
        this.connection.write(resume(fromOffset)).catch(() => {});
      },
    });
    this.log.info('subscribed', { headOffset: this.connection.head, careful: this.careful });
    void this.#follow(this.connection);
  }

  async #follow(connection) {
    try {
      for (let frame = await nextFrame(connection); frame !== undefined; frame = await nextFrame(connection)) {
        this.#heard();
        if (frame.type === 'error') return void (await this.#disconnected(frame));
        if (frame.type === 'digest')
          this.digestWaiters.shift()?.({
            ...frame,
            local: this.replica.digest(),
            localOffset: this.replica.lastOffset,
          });
        else this.replica.handle(frame);
      }
      this.#end('the broker closed the stream');
    } catch (error) {
      this.#end(`stream failed: ${error instanceof Error ? error.message : 'the QUIC connection was closed'}`);
    }
  }

  /** ERROR slowConsumer: subscribe again. Naive: at latest, skipping what was missed. Careful: from our offset, so a
   * delta repairs it. */
  async #disconnected(error) {
    this.disconnects += 1;
    if (error.code !== SLOW_CONSUMER) return this.#end(`broker error ${error.code}: ${error.message}`);
    this.log.warn('disconnected as a slow consumer; subscribing again', { lastOffset: this.replica.lastOffset });
    void this.connection.close();
    const from = this.replica.lastOffset;
    try {
      this.connection = await connect(
        this.init.broker,
        this.careful ? this.#hello(START.offset, from) : this.#hello(START.latest),
      );
    } catch (failure) {
      return this.#end(`could not subscribe again after a slow-consumer disconnect: ${failure.message}`);
    }
    this.reconnects += 1;
    this.#heard(); // its WELCOME
    if (this.careful) {
      this.replica.syncing = true; // until the delta's SYNC_END
      this.replica.deltaFrom = from;
    } else {
      if (this.connection.head > from) this.skippedRanges.push([from + 1, this.connection.head]);
      this.replica.lastOffset = Math.max(from, this.connection.head);
      this.replica.syncing = false;
    }
    void this.#follow(this.connection);
  }

  /** The broker spoke: the end of a stale span, if one was open. */
  #heard() {
    const staleMs = this.staleness?.heard() ?? 0;
    if (staleMs > 0) this.log.info('fresh again', { staleMs: Math.round(staleMs) });
  }

  /** Asks the broker for its digest; the answer comes right after the events queued before the request. */
  requestDigest() {
    if (this.endedEarly !== null) return Promise.reject(new Error(`its subscription had ended (${this.endedEarly})`));
    return within(
      new Promise((resolve, reject) => {
        this.digestWaiters.push(resolve);
        this.connection.write(digestRequest()).catch(reject);
      }),
      DIGEST_TIMEOUT_MS,
      'the broker sent no DIGEST',
    );
  }

  #end(reason) {
    // Our own shutdown, or the run's end, is not an early end.
    if (this.endedEarly !== null || this.closing || this.ending) return;
    this.endedEarly = reason;
    this.log.warn('subscription ended early', { reason });
    this.onEnd(reason);
  }

  close() {
    this.closing = true;
    return this.connection?.close() ?? Promise.resolve();
  }
}
