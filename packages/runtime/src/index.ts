export { createLogger, type Logger } from './logger.js';
export { processResources, runChild, type ChildContext, type RoleHandlers } from './child.js';
export { connectToBroker, openBrokerStream, openQuicStream, type BrokerSession, type BrokerStream, type QuicByteStream } from './quic-client.js';
export { startQuicServer, type QuicServerOptions } from './quic-server.js';
export { readFrames } from './frame-reader.js';
export { withDeadline, sleep } from './deadline.js';
export { TLS_SERVER_NAME } from './quic-options.js';
export { wallClockMs } from './clock.js';
export { errorMessage } from './error-message.js';
