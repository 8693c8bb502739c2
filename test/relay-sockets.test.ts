/**
 * The relay's sockets, in this process over loopback UDP (no QUIC, no child process): one upstream
 * socket per client address, so the "broker" sees each client as its own peer and its replies go
 * back to the client that sent; a superseded address's socket is closed once idle, the newest kept.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { RelayInit } from '@state-divergence/protocol';
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
  const init: RelayInit = { role: 'relay', name: 'relay-c', client: 'c', upstream: { host: HOST, port: upstreamPort }, datagramBytes: 1350, seed: 1, log: { level: 'silent', file: null, mode: null } };
  relay = await Relay.open(init, createLogger('relay-c', init.log), timing);
  return relay;
}

test('each client address gets its own upstream socket, and the broker\'s replies go back to the client that sent', async () => {
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

test('a superseded address\'s socket is closed once idle; the newest is kept whatever its silence; a returning address gets a new one', async () => {
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
