/**
 * The orchestrator's handle on one real child process: typed requests over IPC,
 * a request the child cannot serve answered with an error (the child lives on),
 * and stop() reaping a SIGSTOPped child.
 */
import type { ChildHandle } from '@state-divergence/orchestrator';
import { isGone } from './helpers/run-demo.js';
import { startBroker as startRealBroker } from './fixtures/real-broker.js';

const started: ChildHandle[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => child.stop()));
});

async function startBroker(): Promise<ChildHandle<'broker'>> {
  const { process: broker } = await startRealBroker({ mode: 'lossy', keys: 16, queueCapacity: 8 });
  started.push(broker);
  return broker;
}

describe('a child process, driven over IPC', () => {
  test("answers a typed status request with its own role's counters, and says ready with its port", async () => {
    const broker = await startBroker();
    expect(broker.port).toBeGreaterThan(0);
    const asked = Date.now();
    const counters = await broker.status(5_000);
    expect(counters).toEqual({
      role: 'broker',
      at: expect.any(Number),
      head: 0,
      subscribers: {},
      cpuMicros: expect.any(Number),
    });
    // The broker's clock, when it answered: the transport's share of a stall is measured on it.
    expect(counters.at).toBeGreaterThanOrEqual(asked - 1_000);
    expect(counters.at).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  test('a request it cannot serve is answered with an error naming it, and the child lives on', async () => {
    const broker = await startBroker();
    await expect(broker.digest(5_000)).rejects.toMatchObject({
      code: 'E_REFUSED',
      message: expect.stringMatching(
        /^broker \(pid \d+\) cannot serve a digest request: this role keeps no local copy/,
      ),
    });
    await expect(broker.versions(5_000)).rejects.toMatchObject({ code: 'E_REFUSED' });
    expect(broker.alive).toBe(true);
    expect((await broker.status(5_000)).role).toBe('broker');
  });

  test('a frozen child gets no answer out, but stop() still reaps it (SIGCONT first)', async () => {
    const broker = await startBroker();
    broker.freeze();
    expect(broker.frozen).toBe(true);
    await expect(broker.status(500)).rejects.toMatchObject({
      code: 'E_DEADLINE',
      message: expect.stringMatching(/sent no status reply within 0.5 s/),
    });
    await broker.stop();
    expect(broker.alive).toBe(false);
    expect(isGone(broker.pid)).toBe(true);
  });
});
