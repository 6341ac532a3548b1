/**
 * A binary heap with Python `heapq` semantics, so `GET /queue` lists pending items in the
 * same (unsorted) heap order ComfyUI shows. Items compare like Python tuples on
 * `(number, prompt_id)`.
 */
export interface HeapItem {
  number: number;
  promptId: string;
}

const less = (a: HeapItem, b: HeapItem): boolean =>
  a.number !== b.number ? a.number < b.number : a.promptId < b.promptId;

const siftDown = <T extends HeapItem>(heap: T[], start: number, pos: number): void => {
  const item = heap[pos] as T;
  while (pos > start) {
    const parentPos = (pos - 1) >> 1;
    const parent = heap[parentPos] as T;
    if (!less(item, parent)) break;
    heap[pos] = parent;
    pos = parentPos;
  }
  heap[pos] = item;
};

const siftUp = <T extends HeapItem>(heap: T[], pos: number): void => {
  const end = heap.length;
  const start = pos;
  const item = heap[pos] as T;
  let child = 2 * pos + 1;
  while (child < end) {
    const right = child + 1;
    if (right < end && !less(heap[child] as T, heap[right] as T)) child = right;
    heap[pos] = heap[child] as T;
    pos = child;
    child = 2 * pos + 1;
  }
  heap[pos] = item;
  siftDown(heap, start, pos);
};

export const heapPush = <T extends HeapItem>(heap: T[], item: T): void => {
  heap.push(item);
  siftDown(heap, 0, heap.length - 1);
};

export const heapPop = <T extends HeapItem>(heap: T[]): T | undefined => {
  const last = heap.pop();
  if (last === undefined || heap.length === 0) return last;
  const top = heap[0] as T;
  heap[0] = last;
  siftUp(heap, 0);
  return top;
};

export const heapify = <T extends HeapItem>(heap: T[]): void => {
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftUp(heap, i);
};
