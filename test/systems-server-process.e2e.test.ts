/**
 * The server runner of packages/systems (server-process.ts) with a real redis-server: a killed
 * server restarts on the same port and data directory, stop() leaves nothing running, and a
 * parent that exits without stopping its server takes the server with it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { knobValues, startServer, systemNamed } from '@state-divergence/systems';
import { describeIfInstalled } from './helpers/system-run.js';

const redis = systemNamed('redis-streams');

/** Running or stopped, not a zombie (an orphan's zombie waits for a PID 1 that may not reap). */
function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

describeIfInstalled(redis)('the systems server runner', () => {
  test('kill, restart: same port and data dir, a new process; stop removes all', async () => {
    const server = await startServer(redis.name, redis.server, knobValues(redis));
    const first = server.pid!;
    await server.kill();
    expect(alive(first)).toBe(false);
    expect(await redis.server.ready(server.endpoint)).toBe(false);
    await server.restart();
    expect(server.pid).not.toBe(first);
    expect(await redis.server.ready(server.endpoint)).toBe(true);
    expect(existsSync(server.dataDir)).toBe(true);
    const second = server.pid!;
    await server.stop();
    expect(alive(second)).toBe(false);
    expect(existsSync(server.dataDir)).toBe(false);
  });

  test('a parent that exits without stopping its server leaves no server or data dir', () => {
    const script = [
      "import { knobValues, startServer, systemNamed } from '@state-divergence/systems';",
      "const redis = systemNamed('redis-streams');",
      'const server = await startServer(redis.name, redis.server, knobValues(redis));',
      'process.stdout.write(JSON.stringify({ pid: server.pid, dir: server.dataDir }));',
      'process.exit(0);',
    ].join('\n');
    const { pid, dir } = JSON.parse(
      execFileSync('node', ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '' },
      }),
    ) as { pid: number; dir: string };
    expect(pid).toBeGreaterThan(0);
    expect(existsSync(dir)).toBe(false);
    // The reaper's SIGKILL is sent from the parent's 'exit' handler, before it is gone.
    execFileSync('sleep', ['0.2']);
    expect(alive(pid)).toBe(false);
  });
});
