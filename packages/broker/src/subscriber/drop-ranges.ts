/**
 * Which offsets were dropped for one subscriber name, as inclusive ranges,
 * ascending and never touching. A frozen subscriber drops in long contiguous
 * runs, so this stays a handful of pairs where a list of offsets would grow with
 * the stall. Drops arrive in increasing order (drop-new drops the newest,
 * drop-oldest evicts the oldest queued, a disconnect drops what was queued), so
 * the common case extends or appends the last range; an offset out of order is
 * still placed correctly, because a wrong range would make the checker explain a
 * wrong key by a drop that never happened.
 */
export class DropRanges {
  readonly ranges: Array<[number, number]> = [];
  count = 0;

  add(offset: number): void {
    const last = this.ranges.at(-1);
    if (last === undefined || offset > last[1] + 1) this.ranges.push([offset, offset]);
    else if (offset === last[1] + 1) last[1] = offset;
    else if (!this.insert(offset)) return; // already recorded: counted once
    this.count += 1;
  }

  /** Places an offset below the last range's end; false when it was already recorded. */
  private insert(offset: number): boolean {
    // The first range whose end reaches offset - 1: the offset joins it, extends it, or goes just before it.
    let low = 0;
    let high = this.ranges.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.ranges[mid]![1] < offset - 1) low = mid + 1;
      else high = mid;
    }
    const range = this.ranges[low]!;
    if (offset >= range[0] && offset <= range[1]) return false;
    if (offset === range[1] + 1) {
      range[1] = offset;
      const next = this.ranges[low + 1];
      if (next !== undefined && next[0] === offset + 1) {
        range[1] = next[1];
        this.ranges.splice(low + 1, 1);
      }
    } else if (offset === range[0] - 1) range[0] = offset;
    else this.ranges.splice(low, 0, [offset, offset]);
    return true;
  }
}
