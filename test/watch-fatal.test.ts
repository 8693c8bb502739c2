/**
 * A broker, publisher or relay that dies mid-run ends the run with one line (E_CHILD_EXIT); when the
 * child said why before it exited (`fatal`), that line carries it. Fake children: no process.
 */
import type { Cluster } from '@state-divergence/orchestrator';
import type { ChildMessage } from '@state-divergence/protocol';
import { EventLog, watchCluster } from '@state-divergence/orchestrator/internal';
import { createLogger } from '@state-divergence/runtime';

function fakeChild(name: string, pid: number) {
  const listeners: Array<(m: ChildMessage) => void> = [];
  let exit: (how: string) => void = () => {};
  const exited = new Promise<string>((resolve) => (exit = resolve));
  const child = { name, pid, exited, on: (listener: (m: ChildMessage) => void) => void listeners.push(listener) };
  return { child, say: (m: ChildMessage) => listeners.forEach((l) => l(m)), exit };
}

function watched() {
  const broker = fakeChild('broker', 10);
  const publisher = fakeChild('publisher', 11);
  const cluster = {
    broker: broker.child,
    publisher: publisher.child,
    consumers: [],
    rogue: undefined,
    relays: new Map(),
  } as unknown as Cluster;
  const watch = watchCluster(cluster, {
    eventLog: new EventLog(() => 0),
    logger: createLogger('test', { level: 'silent', file: null, mode: null }),
    aborted: new Promise<never>(() => {}),
  });
  return { watch, publisher };
}

test("a child that sent `fatal` before it exited: the run's line says why", async () => {
  const { watch, publisher } = watched();
  const waiting = watch.guard(new Promise<never>(() => {}));
  publisher.say({ type: 'fatal', message: 'no broker answered within 3 s' });
  publisher.exit('exited with code 1');
  await expect(waiting).rejects.toThrow(
    'publisher (pid 11) exited with code 1 in the middle of the run: no broker answered within 3 s',
  );
});

test('one that said nothing (killed): the line points to its log', async () => {
  const { watch, publisher } = watched();
  const waiting = watch.guard(new Promise<never>(() => {}));
  publisher.exit('killed by SIGKILL');
  await expect(waiting).rejects.toThrow('publisher (pid 11) killed by SIGKILL in the middle of the run; see its log');
});
