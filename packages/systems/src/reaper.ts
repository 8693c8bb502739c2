import { rmSync } from 'node:fs';

/**
 * Every child process group this process started and has not yet seen end (servers, probe
 * consumers). Each is detached, leading its own group (a Ctrl-C at the terminal reaches only the
 * parent, which stops them in order), so nothing reaps them when the parent ends unless the
 * parent does on its way out. 'exit' runs synchronously on every ordinary end, process.exit
 * included; a SIGKILLed parent is what a guardian is for (ServerWatch).
 */
const live = new Set<number>();
/** Data directories the harness made for its servers, removed on the way out too. */
const dirs = new Set<string>();
let installed = false;

export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // the group, then the process, is already gone
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', () => {
    // SIGCONT first: a frozen child must not outlive a SIGKILL that failed.
    for (const group of live) {
      for (const signal of ['SIGCONT', 'SIGKILL'] as const) signalGroup(group, signal);
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
}

export function track(pid: number): void {
  install();
  live.add(pid);
}

/** A directory to remove if the parent ends before it does (a server's own data dir). */
export function trackDir(dir: string): void {
  install();
  dirs.add(dir);
}

export function untrackDir(dir: string): void {
  dirs.delete(dir);
}

export function untrack(pid: number): void {
  live.delete(pid);
}
