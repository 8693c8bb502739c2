import type { Logger } from '@state-divergence/runtime';

/**
 * Everything a run must release, registered as it is acquired and released in
 * reverse order on every path (Jepsen's teardown in `finally`). A release that
 * fails is logged, never thrown: it must not hide the error that ended the run.
 */
export class TeardownStack {
  private readonly steps: Array<{ what: string; release: () => unknown }> = [];

  constructor(private readonly logger: Logger) {}

  defer(what: string, release: () => unknown): void {
    this.steps.push({ what, release });
  }

  async dispose(): Promise<void> {
    while (this.steps.length > 0) {
      const { what, release } = this.steps.pop()!;
      try {
        await release();
      } catch (error) {
        this.logger.warn({ err: error, what }, 'teardown step failed');
      }
    }
  }
}
