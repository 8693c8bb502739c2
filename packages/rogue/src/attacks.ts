import { randomBytes } from 'node:crypto';
import { encodeHello, encodePublish, ErrorCode, Role, type BrokerEndpoint } from '@state-divergence/protocol';
import { CodedError, errorMessage, withDeadline, type Logger } from '@state-divergence/runtime';
import { openBrokerStream, type BrokerStream } from '@state-divergence/runtime/quic';
import type { Attack } from './attack.js';
import { hostileFrame, type Random } from './hostile-bytes.js';
import { INSIDER_ATTACKS } from './insider-attacks.js';

const REPLY_TIMEOUT_MS = 2_000;
const CODE_NAMES = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

/** What one connection's burst was and how the broker answered it. */
export interface AttackResult {
  attack: string;
  framesSent: number;
  /** The ERROR code name the broker answered with, or null (closed, or no answer in time). */
  refusal: string | null;
}

const hostile = (random: Random, n: number) => Array.from({ length: n }, () => hostileFrame(random));
const subscriberHello = (token: Buffer, i: number) => encodeHello({ role: Role.subscriber, name: `rogue-${i}`, token });

/** The cycle of attacks, outsiders then the insider; each connection runs one, with a burst of frames after its hello.
 * */
export const ATTACKS: Attack[] = [
  { name: 'garbage before hello', hello: () => null, body: hostile },
  {
    name: 'hello without a token',
    hello: (_token, i) => encodeHello({ role: Role.subscriber, name: `rogue-${i}`, token: Buffer.alloc(0) }),
    body: hostile,
  },
  {
    name: 'hello with a wrong token',
    hello: (_token, i) => encodeHello({ role: Role.subscriber, name: `rogue-${i}`, token: randomBytes(32) }),
    body: hostile,
  },
  { name: 'subscriber sending hostile frames', hello: subscriberHello, body: hostile },
  {
    name: 'a second publisher',
    hello: (token, i) => encodeHello({ role: Role.publisher, name: `rogue-${i}`, token }),
    body: hostile,
  },
  {
    name: 'subscriber publishing',
    hello: subscriberHello,
    body: (random, n) =>
      Array.from({ length: n }, () =>
        encodePublish({
          key: random() % 2000,
          version: random(),
          value: random(),
          deleted: false,
          publishedAt: 0,
          payloadLength: 8,
        }),
      ),
  },
  ...INSIDER_ATTACKS,
];

async function awaitRefusal(stream: BrokerStream): Promise<string | null> {
  for await (const frame of stream.frames) {
    if (frame.type === 'error') return CODE_NAMES.get(frame.code) ?? `code ${frame.code}`;
  }
  return null;
}

/** A subscription admitted and kept draining (an unread one would hold back a lossless run). */
async function holdSubscription(hello: Buffer, endpoint: BrokerEndpoint, logger: Logger): Promise<BrokerStream> {
  const stream = await openBrokerStream(endpoint, logger);
  await stream.write(hello);
  const first = await withDeadline(
    stream.frames.next(),
    REPLY_TIMEOUT_MS,
    'no welcome for the held subscription',
  ).catch(() => null);
  if (first?.done !== false || first.value.type !== 'welcome')
    logger.warn({ reply: first?.value?.type ?? null }, 'the held subscription was not admitted');
  void (async () => {
    for await (const _frame of stream.frames);
  })().catch(() => {});
  return stream;
}

/** One connection: hello (maybe), a burst of `count` frames in one write, then read until refused. */
export async function runAttack(
  attack: Attack,
  index: number,
  count: number,
  context: { endpoint: BrokerEndpoint; token: Buffer; random: Random; logger: Logger },
): Promise<AttackResult> {
  const held = attack.hold
    ? await holdSubscription(attack.hold(context.token, index), context.endpoint, context.logger).catch(() => undefined)
    : undefined;
  const stream = await openBrokerStream(context.endpoint, context.logger).catch(async (error: unknown) => {
    await held?.close();
    throw error;
  });
  try {
    const hello = attack.hello(context.token, index, context.random);
    const frames = [...(hello ? [hello] : []), ...attack.body(context.random, count)];
    await stream.write(Buffer.concat(frames));
    const refusal = await withDeadline(awaitRefusal(stream), REPLY_TIMEOUT_MS, 'no reply').catch(() => null);
    return { attack: attack.name, framesSent: frames.length, refusal };
  } catch (error) {
    context.logger.debug({ attack: attack.name, reason: errorMessage(error) }, 'attack connection failed');
    return { attack: attack.name, framesSent: 0, refusal: null };
  } finally {
    await stream.close();
    await held?.close();
  }
}

/** Pinning a certificate that is not the broker's must fail the handshake. */
export async function tryWrongPin(
  endpoint: BrokerEndpoint,
  decoyCaPem: string,
  logger: Logger,
): Promise<boolean | null> {
  try {
    const stream = await openBrokerStream(endpoint, logger, decoyCaPem);
    await stream.close();
    return false;
  } catch (error) {
    // Only a failed TLS handshake is a rejected pin; an unreachable broker proves nothing.
    if (error instanceof CodedError && error.code === 'E_TLS') return true;
    logger.warn({ err: error }, 'the wrong-pin attempt failed for another reason than TLS');
    return null;
  }
}
