/**
 * patches/@matrixai+quic+2.0.9.patch (applied by `patch-package` in postinstall): a QUIC
 * connection serialises its receives on a promise chain, not on @matrixai/async-locks' Lock,
 * which cost an AbortController, a Timer, a PromiseCancellable and an Error with a captured
 * stack per datagram (measured: a consumer at 50 datagrams/s used ~35 % less CPU); and it sends
 * from one scratch buffer per connection, copying out only the datagrams quiche produced, where
 * the library allocated a buffer of the largest datagram per send attempt (measured at the
 * firehose's 16 KiB datagrams: the broker busy ~950 ms in 2 s instead of ~1,100-1,400). The
 * patch is lost silently if the library is upgraded or installed without scripts: these fail then.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { events, type QUICConnection } from '@matrixai/quic';
import { generateRunCertificate } from '@state-divergence/orchestrator';
import { createLogger } from '@state-divergence/runtime';
import { openQuicStream, startQuicServer } from '@state-divergence/runtime/quic';

const logger = createLogger('quic-patch-test', { level: 'silent', file: null, mode: null });

test('a real connection receives through the patched chain, in order, and the data arrives', async () => {
  const tls = await generateRunCertificate();
  const connections: QUICConnection[] = [];
  const received: Buffer[] = [];
  let arrived: () => void = () => {};
  const allArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server = await startQuicServer({
    host: '127.0.0.1',
    certPem: tls.certPem,
    keyPem: tls.keyPem,
    idleTimeoutMs: 10_000,
    streamWindowBytes: 64 * 1024,
    datagramBytes: 1350,
    logger,
    onStream: (stream, connection) => {
      connections.push(connection);
      void (async () => {
        const reader = stream.readable.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          received.push(Buffer.from(value));
          if (Buffer.concat(received).length === 3 * 1000) arrived();
        }
      })().catch(() => {});
    },
  });
  const client = await openQuicStream(
    { host: '127.0.0.1', port: server.port, caPem: tls.certPem, idleTimeoutMs: 10_000, datagramBytes: 1350, token: '' },
    logger,
  );
  try {
    for (const fill of [1, 2, 3]) await client.write(Buffer.alloc(1000, fill));
    await allArrived;
    expect([...Buffer.concat(received)]).toEqual([
      ...Buffer.alloc(1000, 1),
      ...Buffer.alloc(1000, 2),
      ...Buffer.alloc(1000, 3),
    ]);
    const { recvLock } = connections[0] as unknown as { recvLock: unknown };
    // The library's own is an @matrixai/async-locks Lock; the patch's a plain object with withF.
    expect((recvLock as object).constructor.name).toBe('Object');
    expect(typeof (recvLock as { withF: unknown }).withF).toBe('function');
    // The send path: quiche writes into one scratch buffer per connection, kept once it has sent
    // (the library allocated a buffer of maxSendUdpPayloadSize per send attempt, and kept none).
    const { sendScratch } = connections[0] as unknown as { sendScratch: unknown };
    expect(Buffer.isBuffer(sendScratch) && (sendScratch as Buffer).length).toBe(1350);
  } finally {
    await client.close();
    await server.stop();
  }
});

test('every datagram a send produces is a copy of its own, never a view of the scratch buffer quiche writes the next one into', async () => {
  const tls = await generateRunCertificate();
  const reply = Buffer.alloc(64 * 1024);
  for (let i = 0; i < reply.length; i++) reply[i] = (i * 7) % 251;
  let serverConnection: QUICConnection | undefined;
  let sendsWithSeveral = 0;
  const views: string[] = [];
  const server = await startQuicServer({
    host: '127.0.0.1',
    certPem: tls.certPem,
    keyPem: tls.keyPem,
    idleTimeoutMs: 10_000,
    streamWindowBytes: 256 * 1024,
    datagramBytes: 1350,
    logger,
    onStream: (stream, connection) => {
      serverConnection = connection;
      let inThisSend = 0;
      connection.addEventListener(events.EventQUICConnectionSend.name, (evt: Event) => {
        const { msg } = (evt as events.EventQUICConnectionSend).detail;
        const scratch = (connection as unknown as { sendScratch: Buffer }).sendScratch;
        const overlaps =
          msg.buffer === scratch.buffer &&
          msg.byteOffset < scratch.byteOffset + scratch.length &&
          scratch.byteOffset < msg.byteOffset + msg.length;
        if (overlaps) views.push(`${msg.length} bytes at ${msg.byteOffset}`);
        inThisSend += 1;
        // Several datagrams out of one send(): the case where a view would be overwritten by the next.
        queueMicrotask(() => {
          if (inThisSend > 1) sendsWithSeveral += 1;
          inThisSend = 0;
        });
      });
      void (async () => {
        const reader = stream.readable.getReader();
        await reader.read(); // the client's hello
        const writer = stream.writable.getWriter();
        await writer.write(reply);
      })().catch(() => {});
    },
  });
  const client = await openQuicStream(
    { host: '127.0.0.1', port: server.port, caPem: tls.certPem, idleTimeoutMs: 10_000, datagramBytes: 1350, token: '' },
    logger,
  );
  try {
    await client.write(Buffer.from([1]));
    const received: Buffer[] = [];
    let length = 0;
    while (length < reply.length) {
      const { value, done } = await client.reader.read();
      if (done) break;
      received.push(Buffer.from(value));
      length += value.length;
    }
    expect(Buffer.concat(received).equals(reply)).toBe(true);
    expect(serverConnection).toBeDefined();
    expect(sendsWithSeveral).toBeGreaterThan(0);
    expect(views).toEqual([]);
  } finally {
    await client.close();
    await server.stop();
  }
});

test.each(['broker', 'publisher', 'consumer'])('the %s process bundle was built from the patched library', (pkg) => {
  // A bundle holds the library's code as it was at build time (scripts/bundle.mjs): built before the patch, it would
  // run the Lock.
  const bundle = readFileSync(
    fileURLToPath(new URL(`../packages/${pkg}/dist/bundle/main.js`, import.meta.url)),
    'utf8',
  );
  expect(bundle).toContain('recvLock = recvChain()');
  expect(bundle).toContain('this.sendScratch ??= Buffer.allocUnsafe(');
  expect(bundle).toContain('msg: Buffer.from(sendBuffer.subarray(0, sendLength))');
});
