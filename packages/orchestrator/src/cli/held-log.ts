import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Log lines held back while the live view owns the terminal. Every process of a run writes its
 * lines (warnings and worse, on a terminal) straight to stderr, and a line written under ink's frame
 * moves the cursor: ink then erases too few lines, and the frame is drawn twice (seen at 80×24 when
 * a thawed consumer logged `stale`). While the view is up the run logs to a file of its own instead
 * (synchronous appends, as to --log-file), and `flush` copies what was written since the last flush
 * to stderr once the view has given the terminal back; `release` flushes the rest and removes it.
 */
export interface HeldLog {
  path: string;
  flush(): void;
  release(): void;
}

export function holdLog(write: (text: string) => void = (text) => void process.stderr.write(text)): HeldLog {
  const dir = mkdtempSync(join(tmpdir(), 'sd-held-log-'));
  const path = join(dir, 'run.ndjson');
  let offset = 0;
  const flush = () => {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return; // nothing was logged
    }
    try {
      const chunk = Buffer.alloc(64 * 1024);
      for (
        let n = readSync(fd, chunk, 0, chunk.length, offset);
        n > 0;
        n = readSync(fd, chunk, 0, chunk.length, offset)
      ) {
        write(chunk.subarray(0, n).toString('utf8'));
        offset += n;
      }
    } finally {
      closeSync(fd);
    }
  };
  return {
    path,
    flush,
    release: () => {
      flush();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
