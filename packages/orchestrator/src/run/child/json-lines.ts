import type { Duplex } from 'node:stream';

/**
 * The orchestrator's end of a foreign consumer's IPC channel: newline-delimited
 * JSON on a socket, exactly what a Node child sees as its IPC channel with
 * `serialization: 'json'` (NODE_CHANNEL_FD), so `process.send` works in it and
 * any other language can read and write lines. It is ours rather than Node's
 * because Node's parent side throws a line that is not JSON out of its event
 * loop as an uncaught exception: a foreign program could crash the orchestrator
 * with one bad write. Here a bad line is a value the channel reports.
 */

/** A line that did not parse (or grew past the cap): reported as a contract failure, never thrown. */
export class UnreadableLine {
  constructor(readonly problem: string) {}
}

/** One message may hold a 1,000,000-key copy; a line without end past this is a broken peer, not a big message. */
const MAX_LINE_BYTES = 256 * 1024 * 1024;

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    const shown = line.length > 80 ? `${line.slice(0, 80)}...` : line;
    return new UnreadableLine(`sent a line that is not JSON: ${JSON.stringify(shown)}`);
  }
}

export class JsonLineChannel {
  constructor(private readonly socket: Duplex) {
    // A write to a peer that died fails here, not as an uncaught 'error' event.
    socket.on('error', () => {});
  }

  /** Every line the child writes, parsed, until it closes its end (or the cap is passed: then one UnreadableLine and
   * the end). */
  async *getEachMessage(): AsyncGenerator<unknown> {
    // The parts of the line so far: a newline is looked for only in what just arrived,
    // so a 30 MB gather reply in 64 KiB chunks is scanned once, not once per chunk.
    let parts: string[] = [];
    let size = 0;
    this.socket.setEncoding('utf8');
    for await (const chunk of this.socket) {
      let text = String(chunk);
      for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n')) {
        parts.push(text.slice(0, newline));
        const line = parts.join('').trim();
        parts = [];
        size = 0;
        text = text.slice(newline + 1);
        if (line !== '') yield parseLine(line);
      }
      if (text !== '') parts.push(text);
      size += text.length;
      if (size > MAX_LINE_BYTES) {
        yield new UnreadableLine(
          `sent a line longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB without a newline; its channel is no ` +
            `longer read`,
        );
        this.socket.destroy();
        return;
      }
    }
  }

  sendMessage(message: object): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.destroyed || !this.socket.writable) return reject(new Error('the IPC channel is closed'));
      this.socket.write(JSON.stringify(message) + '\n', (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Closing our end is the child's `disconnect`: a Node child's IPC channel closes, anything else reads end of file.
   * */
  close(): void {
    this.socket.end();
  }
}
