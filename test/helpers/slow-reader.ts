import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { ORCHESTRATOR } from './run-demo.js';

/** What a slowly read orchestrator printed, and how it ended. */
export interface SlowlyRead {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
}

export interface SlowReading {
  /** The reader's pause after each chunk it takes, ms: a pipe's reader slower than the writer, as jq or less on a busy machine. */
  pauseMs?: number;
  /** Told of each stdout chunk as it arrives (a test may close stdout there, or act on what it reads). */
  onStdout?: (chunk: string, stdout: Readable) => void;
  /** Told of each stderr chunk as it arrives. */
  onStderr?: (chunk: string) => void;
}

/**
 * Starts the orchestrator (`node bin/orchestrator.js ARGS`) with stdout and stderr on
 * pipes that this test reads slowly: after each chunk it stops reading for `pauseMs`.
 * A process that exits without waiting for its pipes to drain loses all that did not fit
 * in them (a few hundred KiB here), whatever the pause; one that waits delivers every byte.
 * Resolves once both pipes are closed (everything that was written is here).
 */
export function readSlowly(args: string[], reading: SlowReading = {}): { done: Promise<SlowlyRead>; pid: number } {
  const child = spawn('node', [ORCHESTRATOR, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
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
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])));
  const done = Promise.all([take(child.stdout, (chunk) => reading.onStdout?.(chunk, child.stdout)), take(child.stderr, reading.onStderr), exited]).then(([stdout, stderr, [exitCode, signal]]) => ({
    exitCode,
    signal,
    stdout,
    stderr,
    pid: child.pid!,
  }));
  return { done, pid: child.pid! };
}

/** The last line of a text that ends with a newline ('' when it does not: its last line was cut). */
export function lastLine(text: string): string {
  if (!text.endsWith('\n')) return '';
  const lines = text.slice(0, -1).split('\n');
  return lines[lines.length - 1]!;
}
