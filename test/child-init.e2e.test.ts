/**
 * A child sent an init it cannot use says which field is wrong and exits
 * non-zero, before it binds or connects anything: a broker given an init
 * without `overflow` and `datagramBytes` once said ready and then died on the
 * first connection with NumberExpected.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { execaNode } from 'execa';
import { TOKEN_BYTES } from '@state-divergence/protocol';
import { createLogger } from '@state-divergence/runtime';
import {
  brokerInit,
  DEFAULTS,
  generateRunCertificate,
  spawnRole,
  type ChildHandle,
} from '@state-divergence/orchestrator';

const log = { level: 'error', file: null, mode: 'lossy' } as const;
const started: ChildHandle[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => child.stop()));
});

/** The broker's init as the orchestrator makes it, without the named fields. */
async function brokerInitWithout(...keys: string[]): Promise<Record<string, unknown>> {
  const tls = await generateRunCertificate();
  const token = randomBytes(TOKEN_BYTES).toString('hex');
  const init = brokerInit({
    ...DEFAULTS,
    mode: 'lossy',
    keys: 16,
    queueCapacity: 8,
    overflow: 'drop-new',
    tls,
    token,
    idleTimeoutMs: 20_000,
    datagramSize: 1350,
    coalesceMs: 0,
    log,
  });
  return Object.fromEntries(Object.entries(init).filter(([key]) => !keys.includes(key)));
}

test('a broker sent an init without queuePolicy and datagramBytes exits 1, saying which field is missing', async () => {
  const child = execaNode(fileURLToPath(new URL('../packages/broker/dist/bundle/main.js', import.meta.url)), [], {
    ipc: true,
    serialization: 'advanced',
    stdin: 'ignore',
    reject: false,
    timeout: 20_000,
  });
  const messages: unknown[] = [];
  const booted = child.getOneMessage();
  expect(await booted).toMatchObject({ type: 'booted' });
  const fatal = child.getOneMessage().then((m) => messages.push(m));
  await child.sendMessage(await brokerInitWithout('queuePolicy', 'datagramBytes'));
  const result = await child;
  await fatal.catch(() => {});
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toBe('a broker process cannot start: init.queuePolicy is missing');
  expect(messages).toEqual([{ type: 'fatal', message: 'a broker process cannot start: init.queuePolicy is missing' }]);
});

test("the orchestrator's own start-up reports the child's refusal, naming the field", async () => {
  const init = { ...(await brokerInitWithout()), datagramBytes: '1350' };
  const spawning = spawnRole({
    role: 'broker',
    name: 'broker',
    init: init as never,
    logger: createLogger('test', log),
    track: (child) => started.push(child),
  });
  await expect(spawning).rejects.toMatchObject({
    message: expect.stringMatching(
      /^broker \(pid \d+\) failed: a broker process cannot start: init\.datagramBytes is not a non-negative integer$/,
    ),
  });
});
