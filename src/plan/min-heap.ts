/**
 * A binary min-heap of numbers: the scheduler's ready queue, keyed by document order, so the
 * earliest ready leaf is always taken first in O(log n).
 */
export class MinHeap {
  readonly #items: number[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): number | undefined {
    return this.#items[0];
  }

  push(value: number): void {
    const items = this.#items;
    let i = items.length;
    items.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = this.#at(parent);
      if (above <= value) break;
      items[i] = above;
      i = parent;
    }
    items[i] = value;
  }

  pop(): number | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && this.#at(right) < this.#at(left) ? right : left;
      const below = this.#at(child);
      if (below >= last) break;
      items[i] = below;
      i = child;
    }
    items[i] = last;
    return top;
  }

  #at(i: number): number {
    const value = this.#items[i];
    if (value === undefined) throw new RangeError(`heap index ${i} out of range`);
    return value;
  }
}
