/**
 * `--system`'s value for our own QUIC broker: today's run path, with its four modes. Its own file
 * without imports, so the CLI can tell the two paths apart without loading any real system's client.
 */
export const OUR_BROKER = 'quic';
