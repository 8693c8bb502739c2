import type { ChildHandle } from './child-process.js';
import type { Timeline } from './timeline.js';

/**
 * The fault: SIGSTOP the chosen consumers, later SIGCONT them (Jepsen's
 * hammer-time). A frozen process stops reading its socket without closing it:
 * to the broker it is a consumer that is merely slow.
 */
export class StallNemesis {
  constructor(
    private readonly targets: ChildHandle[],
    private readonly timeline: Timeline,
  ) {}

  start(): void {
    for (const target of this.targets) {
      target.freeze();
      this.timeline.record({ type: 'freeze', consumer: target.name, pid: target.pid });
    }
  }

  stop(): void {
    for (const target of this.targets) {
      if (!target.frozen) continue;
      target.thaw();
      this.timeline.record({ type: 'thaw', consumer: target.name, pid: target.pid });
    }
  }
}
