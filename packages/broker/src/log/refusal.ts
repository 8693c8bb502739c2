/**
 * Why DurableLog.open() will not open a directory, in one line (the message): the broker prints
 * it and exits 2 with nothing started. A distinct class, so that a caller can tell a refusal
 * (the data dir is wrong or damaged: a person must look) from a bug.
 */
export class LogRefusal extends Error {
  constructor(dir: string, why: string) {
    super(`durable log ${dir}: ${why}`);
    this.name = 'LogRefusal';
  }
}
