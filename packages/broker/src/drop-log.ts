/**
 * Which offsets were dropped for one subscriber, as inclusive ranges. A frozen
 * subscriber drops in long contiguous runs, so this stays a handful of pairs
 * where a list of offsets would grow with the stall.
 */
export class DropLog {
  readonly ranges: Array<[number, number]> = [];
  count = 0;

  add(offset: number): void {
    this.count += 1;
    const last = this.ranges.at(-1);
    if (last !== undefined && last[1] === offset - 1) last[1] = offset;
    else this.ranges.push([offset, offset]);
  }
}
