/**
 * A queue that runs jobs in the order given, at most `atOnce` at a time, and hands back each job's
 * promise at once: a file of quick CLI checks starts, while its collection runs, the orchestrator
 * processes its tests will read, and the tests await them in turn. Each process spends ~0.3 s of CPU
 * booting (loading its bundle), which one after another cost cli.test 12.9 s of wall time. Jobs must
 * not reject (execa with `reject: false`): a promise no test awaits yet must never be an unhandled
 * rejection.
 */
export function runAhead(atOnce: number): <T>(job: () => Promise<T>) => Promise<T> {
  const waiting: Array<() => void> = [];
  let running = 0;
  return async (job) => {
    if (running >= atOnce) await new Promise<void>((start) => waiting.push(start));
    else running += 1; // a waiting job inherits the slot of the one that started it
    try {
      return await job();
    } finally {
      const start = waiting.shift();
      if (start === undefined) running -= 1;
      else start();
    }
  };
}
