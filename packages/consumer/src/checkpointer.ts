import { mkdirSync } from 'node:fs';
import { errorMessage, type Logger } from '@state-divergence/runtime';
import { saveCheckpoint, saveCheckpointSync, type CheckpointState } from './checkpoint.js';

/** How often a changed state is written: a crash loses at most this much, which the broker replays. */
export const CHECKPOINT_INTERVAL_MS = 100;

export interface CheckpointSource {
  /** The state to persist, or null while it is not consistent (a snapshot half received, no epoch yet). */
  state(): CheckpointState | null;
  /** Changes whenever the state does (cheap: asked every interval). */
  stamp(): string;
}

/**
 * Writes the consumer's checkpoint every CHECKPOINT_INTERVAL_MS when it changed, one write
 * at a time, and a last one at close. Writes are serialised so two renames never race: the
 * last one is always the newest state.
 */
export class Checkpointer {
  writes = 0;
  private written = '';
  private inFlight: Promise<void> = Promise.resolve();
  private busy = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly dir: string,
    private readonly source: CheckpointSource,
    private readonly logger: Logger,
  ) {
    mkdirSync(dir, { recursive: true });
    this.timer = setInterval(() => this.tick(), CHECKPOINT_INTERVAL_MS);
    this.timer.unref();
  }

  private tick(): void {
    if (this.busy) return;
    const stamp = this.source.stamp();
    if (stamp === this.written) return;
    const state = this.source.state();
    if (state === null) return;
    this.busy = true;
    this.inFlight = saveCheckpoint(this.dir, state)
      .then(
        () => {
          this.written = stamp;
          this.writes += 1;
        },
        (error: unknown) =>
          this.logger.warn({ err: error, dir: this.dir }, `checkpoint not written: ${errorMessage(error)}`),
      )
      .finally(() => (this.busy = false));
  }

  /** Stops the timer, lets a write in progress finish, then writes the current state (if consistent) at once. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.inFlight;
    const stamp = this.source.stamp();
    const state = this.source.state();
    if (state === null || stamp === this.written) return;
    try {
      saveCheckpointSync(this.dir, state);
      this.written = stamp;
      this.writes += 1;
    } catch (error) {
      this.logger.warn({ err: error, dir: this.dir }, `last checkpoint not written: ${errorMessage(error)}`);
    }
  }
}
