/**
 * The relay's sockets, in this process over loopback UDP (no QUIC, no child process): one upstream
 * socket per client address, so the "broker" sees each client as its own peer and its replies go
 * back to the client that sent; a superseded address's socket is closed once idle, the newest kept;
 * each direction shaped by its own half of a shape command.
 */
import { createSocket, type Socket } from 'node:dgram';
import { CLEAR_LINK, PARTITIONED_LINK, type RelayInit } from '@state-divergence/protocol';
import { Relay } from '@state-divergence/relay/internal';
import { createLogger, sleep } from '@state-divergence/runtime';

const HOST = '127.0.0.1';
const sockets: Socket[] = [];
let relay: Relay | undefined;

afterEach(() => {
  relay?.close();
  relay = undefined;
  for (const socket of sockets.splice(0)) socket.close();
});

async function bound(): Promise<Socket> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.bind(0, HOST, resolve));
  return socket;
}

/** A "broker" that answers each datagram with the source port it came from. */
async function portEcho(): Promise<Socket> {
  const echo = await bound();
  echo.on('message', (_datagram, from) => echo.send(String(from.port), from.port, from.address));
  return echo;
}

/** Sends one datagram through the relay from `client` and resolves with the broker's answer (bounded). */
async function ask(client: Socket): Promise<number> {
  const answer = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer through the relay within 5 s')), 5_000);
    client.once('message', (datagram) => {
      clearTimeout(timer);
      resolve(Number(datagram.toString()));
    });
  });
  client.send('hello', relay!.port, HOST);
  return answer;
}

async function openRelay(upstreamPort: number, timing = { idleCloseMs: 60_000, sweepMs: 10_000 }): Promise<Relay> {
  const init: RelayInit = {
    role: 'relay',
    name: 'relay-c',
    client: 'c',
    upstream: { host: HOST, port: upstreamPort },
    datagramBytes: 1350,
    seed: 1,
    log: { level: 'silent', file: null, mode: null },
  };
  relay = await Relay.open(init, createLogger('relay-c', init.log), timing);
  return relay;
}

test("each client address gets its own upstream socket, and the broker's replies go back to the client that sent", async () => {
  const echo = await portEcho();
  await openRelay(echo.address().port);
  const [a, b] = [await bound(), await bound()];
  const [seenA, seenB] = [await ask(a), await ask(b)];
  expect(seenA).not.toBe(seenB);
  expect([seenA, seenB]).not.toContain(relay!.port);
  // The same address keeps its socket.
  expect(await ask(a)).toBe(seenA);
  expect(await ask(b)).toBe(seenB);
  expect(relay!.openClients).toBe(2);
  const report = relay!.report();
  expect(report.clients).toBe(2);
  expect(report.up).toMatchObject({ forwarded: 4, dropped: 0 });
  expect(report.down).toMatchObject({ forwarded: 4, dropped: 0 });
  expect(report.cpuMicros).toBeGreaterThan(0);
});

test("a superseded address's socket is closed once idle; the newest is kept whatever its silence; a returning address gets a new one", async () => {
  const echo = await portEcho();
  await openRelay(echo.address().port, { idleCloseMs: 200, sweepMs: 50 });
  const [a, b] = [await bound(), await bound()];
  const firstA = await ask(a);
  await ask(b);
  expect(relay!.openClients).toBe(2);
  const deadline = Date.now() + 5_000;
  while (relay!.openClients > 1 && Date.now() < deadline) await sleep(20);
  expect(relay!.openClients).toBe(1);
  // Several more sweeps: b, the newest, stays open though silent.
  await sleep(400);
  expect(relay!.openClients).toBe(1);
  expect(await ask(a)).not.toBe(firstA);
  expect(relay!.report().clients).toBe(3);
});

/**
 * Each direction is shaped by its own half of `shape(up, down)`: up is client to broker, down broker
 * to client. A swap would pass every symmetric fault (a partition, a loss of both ways); this one-way
 * partition would catch it.
 */
test('shape(up, down) shapes each direction by its own half: partitioned up drops only what the client sends, partitioned down only what the broker sends', async () => {
  const broker = await bound();
  const heardByBroker: string[] = [];
  let relayUpstream: { port: number; address: string } | undefined;
  broker.on('message', (datagram, from) => {
    heardByBroker.push(datagram.toString());
    relayUpstream = from;
  });
  await openRelay(broker.address().port);
  const client = await bound();
  const heardByClient: string[] = [];
  client.on('message', (datagram) => void heardByClient.push(datagram.toString()));
  const until = async (done: () => boolean, what: string) => {
    const deadline = Date.now() + 5_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`not within 5 s: ${what}`);
      await sleep(10);
    }
  };
  const handled = (d: 'up' | 'down') => relay!.counters()[d].forwarded + relay!.counters()[d].dropped;
  const fromBroker = (text: string) => broker.send(text, relayUpstream!.port, relayUpstream!.address);

  // A clear link first: the client's address gets its upstream socket, and the broker learns it.
  client.send('hello', relay!.port, HOST);
  await until(() => relayUpstream !== undefined, 'the broker heard the client');

  relay!.shape(PARTITIONED_LINK, CLEAR_LINK);
  client.send('up-cut', relay!.port, HOST);
  fromBroker('down-open');
  await until(
    () => handled('up') === 2 && heardByClient.includes('down-open'),
    "the relay took the client's datagram and forwarded the broker's",
  );
  expect(relay!.counters()).toMatchObject({ up: { forwarded: 1, dropped: 1 }, down: { forwarded: 1, dropped: 0 } });

  relay!.shape(CLEAR_LINK, PARTITIONED_LINK);
  client.send('up-open', relay!.port, HOST);
  fromBroker('down-cut');
  await until(
    () => heardByBroker.includes('up-open') && handled('down') === 2,
    "the relay forwarded the client's datagram and took the broker's",
  );
  expect(relay!.counters()).toMatchObject({ up: { forwarded: 2, dropped: 1 }, down: { forwarded: 1, dropped: 1 } });
  expect(heardByBroker).toEqual(['hello', 'up-open']);
  expect(heardByClient).toEqual(['down-open']);
});
