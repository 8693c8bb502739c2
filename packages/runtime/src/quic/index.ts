/**
 * The QUIC half of the runtime, a separate entry point so that processes
 * without QUIC (the orchestrator) do not load the native library at start-up.
 */
export {
  BrokerRefusal,
  connectToBroker,
  openBrokerStream,
  openQuicStream,
  type BrokerSession,
  type BrokerStream,
  type Hello,
  type QuicByteStream,
} from './client.js';
export { startQuicServer, type QuicServerOptions } from './server.js';
export { readFrames } from './frame-reader.js';
export { connectionTransport, transportStats, type ConnectionTransport } from './transport-stats.js';
