import type { Random } from './hostile-bytes.js';

/** One kind of attack: each connection says `hello` (or nothing), then sends `body` in one write. */
export interface Attack {
  name: string;
  /** The first frame, or null to send garbage before any hello. */
  hello: (token: Buffer, index: number, random: Random) => Buffer | null;
  /** The burst after the hello, about `n` frames (fewer when each is large). */
  body: (random: Random, n: number) => Buffer[];
  /** A HELLO for a second connection held open (and read) while the attack runs. */
  hold?: (token: Buffer, index: number) => Buffer;
}
