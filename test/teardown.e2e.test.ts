import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { isGone, killAll, pidsInLog, readLog, startDemo, survivorsAfter, tempLogFile } from './helpers/run-demo.js';

describe('teardown', () => {
  test('SIGINT in the middle of the stall reaps every process, the frozen one included, without waiting for QUIC', async () => {
    const logFile = tempLogFile();
    const demo = startDemo(['--mode', 'lossy', '--duration', '2', '--log-file', logFile]);
    let pids: number[] = [];
    try {
      // Wait (bounded) until consumer-3 is frozen.
      const deadline = Date.now() + 30_000;
      let stallLine;
      while (!stallLine && Date.now() < deadline) {
        await sleep(100);
        stallLine = readLog(logFile).find((line) => line.msg === 'stall started');
      }
      expect(stallLine).toBeDefined();
      const frozen = (stallLine!.consumers as Array<{ name: string; pid: number }>)[0]!;
      expect(readFileState(frozen.pid)).toBe('T'); // really SIGSTOPped
      pids = pidsInLog(readLog(logFile));
      expect(pids).toContain(frozen.pid);

      const interruptedAt = Date.now();
      demo.kill('SIGINT');
      const result = await demo;
      expect(result.exitCode).toBe(130);
      // A graceful QUIC close after a stall takes ~40 s with this library; teardown must not wait for it.
      expect(Date.now() - interruptedAt).toBeLessThan(10_000);
      expect(await survivorsAfter(pids, 5_000)).toEqual([]);
      expect(isGone(frozen.pid)).toBe(true);
    } finally {
      demo.kill('SIGKILL');
      killAll(pidsInLog(readLog(logFile)));
    }
  });
});

function readFileState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}
