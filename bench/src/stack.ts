import { setTimeout as sleep } from 'node:timers/promises';
import { quantileSorted } from 'simple-statistics';
import { DEFAULTS, generateRunCertificate } from '@state-divergence/orchestrator';
import { spawnPeer, type Peer } from './peers.js';

const WARM_UP_MS = 500;

/** Frames/s measured at the receivers between two counts, after a warm-up. */
async function throughput(receivers: Peer[], seconds: number): Promise<number[]> {
  await sleep(WARM_UP_MS);
  const before = await Promise.all(receivers.map((r) => r.count()));
  await sleep(seconds * 1000);
  const after = await Promise.all(receivers.map((r) => r.count()));
  return after.map((n, i) => (n - before[i]!) / seconds);
}

async function withPeers<T>(peers: Peer[], body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } finally {
    await Promise.all(peers.map((p) => p.stop()));
  }
}

/** (1) One connection, one stream, 64-byte frames, `batch` frames per write: frames/s. */
export async function singleStream(
  transport: 'quic' | 'tcp',
  batch: number,
  seconds: number,
  datagramBytes = DEFAULTS.datagramSize,
): Promise<number> {
  const tls = await generateRunCertificate();
  const sink = await spawnPeer({ kind: `${transport}-sink`, batch, datagramBytes, ...tls });
  const source = await spawnPeer({ kind: `${transport}-source`, batch, datagramBytes, port: sink.port!, ...tls });
  return withPeers([source, sink], async () => {
    source.start();
    const [rate] = await throughput([sink], seconds);
    return rate!;
  });
}

/** A raw QUIC server writing `batch`-frame batches to `clients` processes: frames/s per client (the slowest). */
export async function rawFanout(
  clients: number,
  batch: number,
  seconds: number,
  datagramBytes = DEFAULTS.datagramSize,
): Promise<number> {
  const tls = await generateRunCertificate();
  const server = await spawnPeer({ kind: 'quic-fanout', batch, datagramBytes, ...tls });
  const receivers = await Promise.all(
    Array.from({ length: clients }, () =>
      spawnPeer({ kind: 'quic-fanout-client', batch, datagramBytes, port: server.port!, ...tls }),
    ),
  );
  return withPeers([server, ...receivers], async () => Math.min(...(await throughput(receivers, seconds))));
}

/** Raw QUIC ping-pong of one 64-byte frame: p50 / p99 of the round trip, ms. */
export async function pingPong(pings: number): Promise<{ p50: number; p99: number }> {
  const tls = await generateRunCertificate();
  const datagramBytes = DEFAULTS.datagramSize;
  const echo = await spawnPeer({ kind: 'quic-echo', batch: 1, datagramBytes, ...tls });
  const client = await spawnPeer({ kind: 'quic-ping', batch: 1, datagramBytes, port: echo.port!, pings, ...tls });
  return withPeers([client, echo], async () => {
    const samples = client.pings();
    client.start();
    const sorted = (await samples).slice(Math.floor(pings / 10)).sort((a, b) => a - b); // first 10% are warm-up
    return { p50: quantileSorted(sorted, 0.5), p99: quantileSorted(sorted, 0.99) };
  });
}
