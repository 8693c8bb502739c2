import { QUICSocket } from '@matrixai/quic';
import type { Logger } from '../logger.js';
import { quicLogger } from './options.js';

/**
 * What we ask the kernel for on every UDP socket, each way. Linux's default
 * (~208 KiB) overflows under a burst of datagrams; quiche then retransmits what
 * the kernel dropped, and the retransmissions cost the same per-datagram CPU as
 * the originals. The kernel silently caps it at net.core.rmem_max / wmem_max,
 * so the socket reports what it really got.
 */
export const SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * The library's UDP socket, with bigger kernel buffers. The library creates
 * its dgram socket inside `start` and offers no option for its buffers, so a
 * server or client is given one of these as a shared socket, and its owner
 * stops it after the server or client.
 */
export class TunedSocket extends QUICSocket {
  constructor(logger: Logger) {
    super({ logger: quicLogger(logger) });
  }

  override async start(options: Parameters<QUICSocket['start']>[0] = {}): Promise<void> {
    await super.start(options);
    try {
      this.socket.setRecvBufferSize(SOCKET_BUFFER_BYTES);
      this.socket.setSendBufferSize(SOCKET_BUFFER_BYTES);
    } catch (error) {
      await this.stop({ force: true });
      throw error;
    }
  }

  /** What the kernel granted (Linux reports double the usable size: it counts its bookkeeping). */
  get receiveBufferBytes(): number {
    return this.socket.getRecvBufferSize();
  }
}

/** Starts a tuned socket bound to `host` on an ephemeral port. */
export async function startTunedSocket(host: string, logger: Logger): Promise<TunedSocket> {
  const socket = new TunedSocket(logger);
  await socket.start({ host, port: 0 });
  return socket;
}
