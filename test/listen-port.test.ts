import { listenPorts } from '@state-divergence/runtime/internal';
import { readFileSync } from 'node:fs';

const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

test('a broker port is tried below the ephemeral range, then any port', () => {
  const ports = listenPorts();
  expect(ports.at(-1)).toBe(0);
  expect(ports.length).toBeGreaterThan(1);
  for (const port of ports.slice(0, -1)) {
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(low);
  }
});

test('the lowest and highest draws stay inside the range', () => {
  expect(listenPorts(() => 0)[0]).toBe(10_000);
  expect(listenPorts(() => 0.999_999)[0]).toBeLessThan(low);
});
