/**
 * The orchestrator's IPC channel to a child, with a hand-made subprocess: a request made the
 * instant the child died (execa's sendMessage then throws synchronously) must fail as a rejected
 * promise its caller handles, never as an unhandled rejection (which ends the run as an
 * "internal error" instead of naming the dead child: seen when the broker was SIGKILLed while
 * the live view asked it for its last writes).
 */
import type { ChildInit, OrchestratorCommand } from '@state-divergence/protocol';
import { ChildChannel } from '@state-divergence/orchestrator/internal';
import { createLogger } from '@state-divergence/runtime';

const logger = createLogger('test', { level: 'silent', file: null, mode: null });

test('a request to a child whose channel just closed rejects with its exit, and nothing is left unhandled', async () => {
  let exit: (how: string) => void = () => {};
  const exited = new Promise<string>((resolve) => (exit = resolve));
  let open = true;
  const subprocess = {
    async *getEachMessage() {},
    sendMessage(): Promise<void> {
      if (open) return Promise.resolve();
      throw new Error('IPC channel is already disconnected');
    },
  };
  const channel = new ChildChannel(subprocess, 'broker (pid 1)', exited, logger);
  await channel.configure({ role: 'broker' } as ChildInit); // its init went out; then the channel closed
  open = false;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const reply = channel.request('lastWrites', 5_000);
    exit('killed by SIGKILL');
    await expect(reply).rejects.toThrow(
      'broker (pid 1) killed by SIGKILL while the orchestrator waited for lastWrites reply',
    );
    await new Promise((resolve) => setTimeout(resolve, 50)); // let any stray rejection surface
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('a child still booting is sent its init first: a command meant for running children is held back (it would read it as a bad init), `stop` is not, a request is refused at once', async () => {
  const sent: unknown[] = [];
  const subprocess = {
    async *getEachMessage() {},
    sendMessage(message: object): Promise<void> {
      sent.push(message);
      return Promise.resolve();
    },
  };
  const channel = new ChildChannel(subprocess, 'broker (pid 2)', new Promise<string>(() => {}), logger);
  const commands: OrchestratorCommand[] = [{ type: 'phase', phase: 'checking' }, { type: 'ending' }, { type: 'stop' }];
  for (const command of commands) channel.send(command);
  await expect(channel.request('status', 5_000)).rejects.toThrow(
    'broker (pid 2) cannot serve a status request: it has not been configured yet',
  );
  expect(sent).toEqual([{ type: 'stop' }]);
  await channel.configure({ role: 'broker' } as ChildInit);
  channel.send({ type: 'ending' });
  expect(sent).toEqual([{ type: 'stop' }, { role: 'broker' }, { type: 'ending' }]);
});
