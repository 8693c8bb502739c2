import { FrameDecoder, type Frame } from '@state-divergence/protocol';

/**
 * Yields the frames of a QUIC stream's readable side, in order. The decoder is
 * pull-based, so a consumer of this generator that awaits between frames holds
 * back further reads, and QUIC flow control pushes back on the sender.
 * Throws FrameDecodeError on the first bad frame (the stream is then unusable).
 */
export async function* readFrames(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<Frame> {
  const decoder = new FrameDecoder();
  for (;;) {
    let frame = decoder.next();
    while (frame !== null) {
      yield frame;
      frame = decoder.next();
    }
    const { value, done } = await reader.read();
    if (done) {
      if (decoder.pendingBytes > 0) throw new Error(`stream ended inside a frame (${decoder.pendingBytes} bytes left)`);
      return;
    }
    decoder.push(value);
  }
}
