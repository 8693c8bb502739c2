import type { BrokerInit } from '@state-divergence/protocol';
import { runChild, startQuicServer } from '@state-divergence/runtime';
import { serveClient, type SessionContext } from './client-session.js';
import { Topic } from './topic.js';

await runChild<BrokerInit>(async ({ init, logger }) => {
  const topic = new Topic(init.mode);
  const context: SessionContext = { topic, init, logger, publisher: { connected: false } };
  const server = await startQuicServer({
    host: init.host,
    certPem: init.certPem,
    keyPem: init.keyPem,
    idleTimeoutMs: init.idleTimeoutMs,
    streamWindowBytes: init.streamWindowBytes,
    logger,
    onStream: (stream) => void serveClient(stream, context),
  });
  logger.info({ host: init.host, port: server.port, queueCapacity: init.queueCapacity, batchMaxEvents: init.batchMaxEvents }, 'listening');

  const subscriberEntries = () => [...topic.subscribers.values()];
  return {
    port: server.port,
    counters: () => ({
      role: 'broker',
      head: topic.headOffset,
      subscribers: Object.fromEntries(subscriberEntries().map((s) => [s.name, s.counters()])),
    }),
    gather: () => ({
      role: 'broker',
      head: topic.headOffset,
      subscribers: Object.fromEntries(subscriberEntries().map((s) => [s.name, s.report()])),
    }),
    close: () => server.stop({ force: true }),
  };
});
