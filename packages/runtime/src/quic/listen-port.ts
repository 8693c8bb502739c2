import { readFileSync } from 'node:fs';

/** Where the kernel picks a port for every socket bound to port 0 (Linux's default when the file cannot be read). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && Number.isInteger(low) && Number.isInteger(high)) return [low, high];
  } catch {
    // not Linux, or no /proc: assume the default
  }
  return [32_768, 60_999];
}

const LOWEST = 10_000;
const ATTEMPTS = 32;

/**
 * Ports to try for a server that must be found again on the same port after a restart (the
 * broker), in order, ending with 0 (any). They lie below the ephemeral range: a port the kernel
 * hands out for port 0 is free again the moment its owner dies, and any client socket opened in
 * the meantime (hundreds in a test run) may be given it, so a restart on it fails now and then
 * (measured: "Could not bind to 127.0.0.1" in clients-durable.e2e on a loaded machine). Below the
 * range only another server choosing the same port can take it, and the restart comes first.
 */
export function listenPorts(random: () => number = Math.random): number[] {
  const [low] = ephemeralRange();
  const span = low - LOWEST;
  if (span < ATTEMPTS) return [0];
  return [...Array.from({ length: ATTEMPTS }, () => LOWEST + Math.floor(random() * span)), 0];
}
