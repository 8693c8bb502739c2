import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 10_000;
const ATTEMPTS = 64;

/** The first port the kernel hands out for port 0 (Linux's default when /proc cannot be read). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST) return low;
  } catch {
    // not Linux: assume its default
  }
  return 32_768;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * `count` distinct free loopback TCP ports below the ephemeral range. A server is restarted on
 * the same port (a crash fault); a port from the ephemeral range may meanwhile be handed to any
 * client socket of the run, and the restart would fail (the broker's reason too:
 * runtime/src/quic/listen-port.ts). Below the range only another server can take it.
 */
export async function freePorts(count: number, random: () => number = Math.random): Promise<number[]> {
  const high = ephemeralLow();
  const ports: number[] = [];
  for (let attempt = 0; attempt < ATTEMPTS * count && ports.length < count; attempt += 1) {
    const port = LOWEST + Math.floor(random() * (high - LOWEST));
    if (!ports.includes(port) && (await bindable(port))) ports.push(port);
  }
  if (ports.length < count) throw new Error(`found ${ports.length} of ${count} free loopback ports`);
  return ports;
}
