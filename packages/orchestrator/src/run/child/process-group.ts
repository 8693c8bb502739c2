/**
 * A child's process group (the child leads it: it is spawned detached). Signals
 * go to the whole group, so anything the child starts is frozen, thawed and
 * killed with it; if the group is gone, to the pid; if that is gone, nowhere.
 */
export class ProcessGroup {
  private stopped = false;

  constructor(readonly pid: number) {}

  /** True between freeze() and thaw(): the process cannot run, answer IPC or act on SIGTERM. */
  get frozen(): boolean {
    return this.stopped;
  }

  signal(name: NodeJS.Signals): void {
    for (const target of [-this.pid, this.pid]) {
      try {
        process.kill(target, name);
        return;
      } catch {
        // Group or process already gone: try the next, then nothing to signal.
      }
    }
  }

  freeze(): void {
    this.signal('SIGSTOP');
    this.stopped = true;
  }

  thaw(): void {
    this.signal('SIGCONT');
    this.stopped = false;
  }

  /** SIGKILL works on a stopped process too; SIGCONT first so nothing stays stopped if it survives. */
  kill(): void {
    this.thaw();
    this.signal('SIGKILL');
  }
}
