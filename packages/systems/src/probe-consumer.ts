/**
 * A consumer in a process of its own, so that a test (or the harness) can SIGSTOP and SIGCONT
 * it: runs one system's idiom into a LocalCopy and reports the copy and its signals over IPC on
 * request. It exits when told to stop or when its parent's channel closes.
 */
import { getEachMessage, sendMessage } from 'execa';
import { LocalCopy } from './local-copy.js';
import { settledWithin } from './settled-within.js';
import type { ProbeCommand, ProbeMessage } from './probe-protocol.js';
import { systemNamed } from './systems.js';
import type { StartedConsumer } from './target-system.js';

const send = (message: ProbeMessage) => sendMessage(message).catch(() => {});
const copy = new LocalCopy();
let consumer: StartedConsumer | undefined;

async function stop(code: number): Promise<never> {
  if (consumer !== undefined) await settledWithin(consumer.close(), 1_000);
  process.exit(code);
}

process.on('disconnect', () => void stop(1));

for await (const raw of getEachMessage()) {
  const command = raw as ProbeCommand;
  if (command.type === 'start') {
    try {
      const system = systemNamed(command.system);
      consumer = await system.idioms[command.idiom](command.endpoint, command.prefix, copy);
      await send({ type: 'started' });
    } catch (error) {
      await send({ type: 'failed', message: (error as Error).message });
    }
  } else if (command.type === 'report') {
    await send({
      type: 'report',
      entries: [...copy.entries].map(([key, { value, seq }]) => [key, value, seq]),
      applied: copy.applied.length,
      highestSeq: copy.applied.reduce((high, seq) => Math.max(high, seq), 0),
      appliedSeqs: copy.applied,
      appliedAtMs: copy.appliedAtMs,
      relists: copy.relists,
      signals: copy.signals,
    });
  } else if (command.type === 'stop') {
    await stop(0);
  }
}
