// The child contract of docs/CONSUMER.md, from the consumer's side. The
// orchestrator opens Node's IPC channel for us (JSON lines on NODE_CHANNEL_FD),
// so process.send and the 'message' event are all it takes.

/** Sends one message; after the orchestrator has gone there is nobody to tell. */
export function send(message) {
  if (process.connected) process.send(message, () => {});
}

/**
 * Listens first (a message sent before anyone listens is lost), says `booted`,
 * and resolves with the init message: where the broker is, the certificate to
 * pin, the token. Never from argv or the environment.
 */
export function awaitInit() {
  return new Promise((resolve) => {
    const first = (message) => {
      process.off('message', first);
      resolve(message);
    };
    process.on('message', first);
    send({ type: 'booted', pid: process.pid });
  });
}

/** Answers one request with exactly one message: a `reply`, or a `refused` for what this consumer does not do. */
async function answer({ id, kind }, handlers) {
  const handler = handlers.requests[kind];
  if (handler === undefined)
    return send({ type: 'refused', id, kind, message: `this consumer does not serve ${kind}` });
  try {
    send({ type: 'reply', id, kind, value: await handler() });
  } catch (error) {
    send({ type: 'refused', id, kind, message: error instanceof Error ? error.message : String(error) });
  }
}

/** Acts on every command until the channel closes: requests, phase changes, the run's end, stop. */
export function serve(handlers) {
  process.on('message', (message) => {
    switch (message?.type) {
      case 'request':
        return void answer(message, handlers);
      case 'phase':
        return handlers.phase(message.phase);
      case 'ending':
        return handlers.ending();
      case 'stop':
        return handlers.stop();
      default:
        return undefined; // nothing else is sent to a consumer
    }
  });
}
