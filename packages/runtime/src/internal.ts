/**
 * What runChild uses inside and only unit tests call directly (the package's `./internal` export):
 * no package imports this.
 */
export { serveRequest } from './serve-request.js';
export { listenPorts } from './quic/listen-port.js';
