import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ORCHESTRATOR } from './run-demo.js';

/** What a slowly read orchestrator printed, and how it ended. */
export interface SlowlyRead {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SlowReading {
  /** The reader's pause after each chunk it takes, ms: a pipe's reader slower than the writer, as jq or less on a busy
   * machine. */
  pauseMs?: number;
  /** Told of each stdout chunk as it arrives (a test may close stdout there). */
  onStdout?: (chunk: string, stdout: Readable) => void;
  /**
   * Full pipes: stdout and stderr are pipes already full when the process starts, and nobody
   * reads them until it has exited or `readFrom` resolved (the test's sign that the process has
   * said its last words). Whatever it writes meanwhile stays in the process: one that exits
   * without waiting for its pipes loses all of it, however little; one that waits delivers it.
   */
  fullPipes?: { readFrom: Promise<unknown> };
}

/**
 * Starts the orchestrator (`node bin/orchestrator.js ARGS`) with stdout and stderr on
 * pipes that this test reads slowly: after each chunk it stops reading for `pauseMs`.
 * A process that exits without waiting for its pipes to drain loses all that did not fit
 * in them (a few hundred KiB here, none with fullPipes); one that waits delivers every byte.
 * `done` resolves once both pipes are closed: everything that was written is in it.
 */
export function readSlowly(args: string[], reading: SlowReading = {}): { done: Promise<SlowlyRead>; pid: number } {
  const pipes = reading.fullPipes === undefined ? undefined : [fullPipe(), fullPipe()];
  const child = spawn('node', [ORCHESTRATOR, ...args], {
    stdio: ['ignore', pipes?.[0]!.writer ?? 'pipe', pipes?.[1]!.writer ?? 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (code, signal) => resolve([code, signal])),
  );
  let streams: Promise<[Readable, Readable]>;
  if (pipes === undefined) streams = Promise.resolve([child.stdout!, child.stderr!]);
  else {
    // Only the child (and the processes it starts) may hold the writing ends: the pipes close when they are all gone.
    for (const pipe of pipes) closeSync(pipe.writer);
    streams = Promise.race([exited, reading.fullPipes!.readFrom]).then(() => [pipes[0]!.open(), pipes[1]!.open()]);
  }
  const pauseMs = reading.pauseMs ?? 2;
  const take = (stream: Readable, tell?: (chunk: string) => void): Promise<string> => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      tell?.(chunk.toString('utf8'));
      if (stream.destroyed) return;
      stream.pause();
      setTimeout(() => stream.resume(), pauseMs);
    });
    return new Promise((resolve) => stream.on('close', () => resolve(Buffer.concat(chunks).toString('utf8'))));
  };
  const done = streams.then(async ([stdout, stderr]) => {
    const [out, err, [exitCode, signal]] = await Promise.all([
      take(stdout, (chunk) => reading.onStdout?.(chunk, stdout)),
      take(stderr),
      exited,
    ]);
    return { exitCode, signal, stdout: pipes ? pipes[0]!.after(out) : out, stderr: pipes ? pipes[1]!.after(err) : err };
  });
  return { done, pid: child.pid! };
}

/** The byte a full pipe is filled with before the process starts. */
const FILL = '.';

/**
 * A named pipe filled to the brim: writes of a page, then of a byte, until it takes no more
 * (Linux: 64 KiB). Reading is done through `open`, and `after` checks the fill came back
 * untouched and returns what the process wrote behind it.
 */
function fullPipe(): { writer: number; open(): Readable; after(read: string): string } {
  const path = join(mkdtempSync(join(tmpdir(), 'state-divergence-pipe-')), 'pipe');
  execFileSync('mkfifo', [path]);
  // The reading end first: a non-blocking open for writing fails while nobody has it open for reading.
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  let filled = 0;
  for (const chunk of [Buffer.alloc(4096, FILL), Buffer.from(FILL)]) {
    for (;;) {
      try {
        filled += writeSync(writer, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        break;
      }
    }
  }
  return {
    writer,
    open: () => new Socket({ fd: reader, readable: true, writable: false }),
    after: (read) => {
      if (read.slice(0, filled) !== FILL.repeat(filled))
        throw new Error(`the pipe's ${filled} bytes of fill did not come back first`);
      return read.slice(filled);
    },
  };
}

/** The last line of a text that ends with a newline ('' when it does not: its last line was cut). */
export function lastLine(text: string): string {
  if (!text.endsWith('\n')) return '';
  const lines = text.slice(0, -1).split('\n');
  return lines[lines.length - 1]!;
}
