import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import Logger, { Handler, LogLevel } from '@matrixai/logger';
import type { ClientCryptoOps, ServerCryptoOps } from '@matrixai/quic';
import type { Logger as PinoLogger } from '../logger.js';

/** Routes the QUIC library's own warnings into our NDJSON log instead of plain text on stderr. */
class PinoHandler extends Handler {
  constructor(private readonly pinoLogger: PinoLogger) {
    super();
  }
  emit(output: string): void {
    this.pinoLogger.warn({ component: 'quic' }, output);
  }
}

export function quicLogger(logger: PinoLogger): Logger {
  return new Logger('quic', LogLevel.WARN, [new PinoHandler(logger)]);
}

/** Stateless-reset and retry tokens are HMAC-SHA256 signed with a per-process key. */
export function serverCrypto(): { key: ArrayBuffer; ops: ServerCryptoOps } {
  const key = randomBytes(32);
  const sign = (k: ArrayBuffer, data: ArrayBuffer): Buffer =>
    createHmac('sha256', Buffer.from(k)).update(Buffer.from(data)).digest();
  const toArrayBuffer = (buf: Buffer): ArrayBuffer => {
    const copy = new ArrayBuffer(buf.length);
    new Uint8Array(copy).set(buf);
    return copy;
  };
  return {
    key: toArrayBuffer(key),
    ops: {
      sign: async (k, data) => toArrayBuffer(sign(k, data)),
      verify: async (k, data, sig) => {
        const expected = sign(k, data);
        const given = Buffer.from(sig);
        return given.length === expected.length && timingSafeEqual(given, expected);
      },
    },
  };
}

export function clientCrypto(): { ops: ClientCryptoOps } {
  return {
    ops: {
      randomBytes: async (data) => {
        randomBytes(data.byteLength).copy(Buffer.from(data));
      },
    },
  };
}

/**
 * The largest UDP payload quiche sends and accepts. Both ends need it: the
 * sender's `maxSend` is bounded by the receiver's advertised `maxRecv`, so set
 * on one side only it silently stays at the library's 1,350 bytes. The
 * library's cost is per datagram, so this is its throughput knob.
 */
export function datagramConfig(datagramBytes: number): {
  maxSendUdpPayloadSize: number;
  maxRecvUdpPayloadSize: number;
} {
  return { maxSendUdpPayloadSize: datagramBytes, maxRecvUdpPayloadSize: datagramBytes };
}
