// The wire protocol of docs/PROTOCOL.md, written from that page alone: the
// frames a subscriber sends, and a streaming decoder for what the broker sends.

export const FRAME = {
  hello: 0x01,
  welcome: 0x02,
  event: 0x04,
  error: 0x05,
  state: 0x06,
  syncEnd: 0x07,
  lag: 0x08,
  progress: 0x09,
  resume: 0x0a,
  digestRequest: 0x0b,
  digest: 0x0c,
};
export const START = { latest: 0, snapshot: 1, offset: 2 };
export const SLOW_CONSUMER = 11;

const MAX_LENGTH = 65_570; // 1 + the largest EVENT: anything longer is refused before it is buffered
const ROLE_SUBSCRIBER = 2;
const PROTOCOL_VERSION = 2;

function u64(value) {
  const bytes = Buffer.alloc(8);
  bytes.writeUInt32BE(Math.floor(value / 2 ** 32), 0);
  bytes.writeUInt32BE(value >>> 0, 4);
  return bytes;
}

const readU64 = (bytes, at) => bytes.readUInt32BE(at) * 2 ** 32 + bytes.readUInt32BE(at + 4);

function frame(type, body) {
  const out = Buffer.alloc(5 + body.length);
  out.writeUInt32BE(1 + body.length, 0);
  out[4] = type;
  body.copy(out, 5);
  return out;
}

/** HELLO as a subscriber: name, where to start, and the run's token (hex, 32 bytes). */
export function hello({ name, start, startOffset = 0, token }) {
  const nameBytes = Buffer.from(name, 'utf8');
  const tokenBytes = Buffer.from(token, 'hex');
  const body = Buffer.concat([
    Buffer.from([PROTOCOL_VERSION, ROLE_SUBSCRIBER, nameBytes.length]),
    nameBytes,
    Buffer.from([start]),
    u64(startOffset),
    Buffer.from([tokenBytes.length]),
    tokenBytes,
  ]);
  return frame(FRAME.hello, body);
}

export const resume = (fromOffset) => frame(FRAME.resume, u64(fromOffset));
export const digestRequest = () => frame(FRAME.digestRequest, Buffer.alloc(0));

/** EVENT and STATE: offset, then the PUBLISH body (key, version, value, flags, publishedAt, payload). */
function change(body) {
  if (body.length < 33) throw new Error(`an EVENT or STATE of ${body.length} bytes`);
  return {
    offset: readU64(body, 0),
    key: body.readUInt32BE(8),
    version: readU64(body, 12),
    value: body.readUInt32BE(20),
    deleted: (body[24] & 1) === 1,
    publishedAt: body.readDoubleBE(25),
  };
}

function parse(type, body) {
  switch (type) {
    case FRAME.welcome:
      return { type: 'welcome', head: readU64(body, 0), epoch: readU64(body, 8) };
    case FRAME.event:
      return { type: 'event', ...change(body) };
    case FRAME.state:
      return { type: 'state', ...change(body) };
    case FRAME.syncEnd:
      return { type: 'syncEnd', kind: body[0] === 1 ? 'snapshot' : 'delta', offset: readU64(body, 1) };
    case FRAME.lag:
      return { type: 'lag', from: readU64(body, 0), to: readU64(body, 8) };
    case FRAME.progress:
      return { type: 'progress', head: readU64(body, 0) };
    case FRAME.digest: {
      const hex = (n) => n.toString(16).padStart(8, '0');
      return {
        type: 'digest',
        offset: readU64(body, 0),
        digest: hex(body.readUInt32BE(8)) + hex(body.readUInt32BE(12)),
      };
    }
    case FRAME.error: {
      const code = body.readUInt16BE(0);
      // tooOld (12) and inFuture (13) carry an offset before the message.
      if (code === 12 || code === 13)
        return { type: 'error', code, offset: readU64(body, 2), message: body.subarray(10).toString('utf8') };
      return { type: 'error', code, message: body.subarray(2).toString('utf8') };
    }
    default:
      throw new Error(`a frame of unknown type ${type}`);
  }
}

/** Frames may be split across reads anywhere, and one read may carry many. */
export class Deframer {
  #pending = Buffer.alloc(0);

  push(chunk) {
    this.#pending = this.#pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#pending, chunk]);
  }

  /** The next whole frame, or undefined until more bytes arrive. Throws on a frame the protocol forbids. */
  next() {
    if (this.#pending.length < 4) return undefined;
    const length = this.#pending.readUInt32BE(0);
    if (length === 0 || length > MAX_LENGTH) throw new Error(`a frame length of ${length}`);
    if (this.#pending.length < 4 + length) return undefined;
    const type = this.#pending[4];
    const body = this.#pending.subarray(5, 4 + length);
    this.#pending = this.#pending.subarray(4 + length);
    return parse(type, body);
  }
}
