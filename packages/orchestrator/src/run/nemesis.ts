import type { ChildHandle } from './child/child-handle.js';
import type { Timeline } from './timeline.js';

/**
 * The fault: SIGSTOP consumers, later SIGCONT them (Jepsen's hammer-time),
 * each recorded with its pid. A frozen process stops reading its socket without
 * closing it: to the broker it is a consumer that is merely slow.
 */
export class StallNemesis {
  constructor(private readonly timeline: Timeline) {}

  freeze(targets: ChildHandle[]): void {
    for (const target of targets) {
      target.freeze();
      this.timeline.record({ type: 'freeze', consumer: target.name, pid: target.pid });
    }
  }

  thaw(targets: ChildHandle[]): void {
    for (const target of targets) {
      if (!target.frozen) continue;
      target.thaw();
      this.timeline.record({ type: 'thaw', consumer: target.name, pid: target.pid });
    }
  }
}
