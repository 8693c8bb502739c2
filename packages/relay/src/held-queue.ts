/**
 * Items in order of the time each is due (a binary min-heap): what a delayed link holds. Ties
 * leave in arrival order, so a constant delay never reorders; a jittered one may, as netem's does.
 */
export class HeldQueue<T> {
  private readonly heap: Array<{ due: number; seq: number; item: T }> = [];
  private arrivals = 0;

  get size(): number {
    return this.heap.length;
  }

  /** When the first item is due, or undefined when nothing is held. */
  nextDue(): number | undefined {
    return this.heap[0]?.due;
  }

  push(due: number, item: T): void {
    const heap = this.heap;
    heap.push({ due, seq: this.arrivals++, item });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Removes and returns the first item (undefined when empty). */
  pop(): T | undefined {
    const heap = this.heap;
    const first = heap[0];
    const last = heap.pop();
    if (first === undefined || last === undefined) return undefined;
    if (heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
    return first.item;
  }

  clear(): void {
    this.heap.length = 0;
  }

  private siftDown(start: number): void {
    const n = this.heap.length;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.before(left, smallest)) smallest = left;
      if (right < n && this.before(right, smallest)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private before(a: number, b: number): boolean {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.due < y.due || (x.due === y.due && x.seq < y.seq);
  }

  private swap(a: number, b: number): void {
    const heap = this.heap;
    [heap[a], heap[b]] = [heap[b]!, heap[a]!];
  }
}
