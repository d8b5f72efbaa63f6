// A bounded queue read as an async iterator: what a subscription's source pushes and its transport
// pulls. A reader that falls `capacity` items behind is not buffered for: the channel overflows
// once (the transport then drops that subscriber) and keeps nothing more.

export interface ChannelOptions {
  /** Items kept for a reader that has not pulled them yet. */
  capacity: number;
  /** Called once when an item arrives with the queue full. */
  onOverflow?: () => void;
  /** Called once when the reader stops (return) or the channel is closed. */
  onClose?: () => void;
}

export class Channel<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private readonly waiting: ((result: IteratorResult<T>) => void)[] = [];
  private closed = false;
  private overflowed = false;

  constructor(private readonly options: ChannelOptions) {}

  get size(): number {
    return this.queue.length;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** False when the item was not taken (closed, or the reader is too far behind). */
  push(item: T): boolean {
    if (this.closed) return false;
    const reader = this.waiting.shift();
    if (reader) {
      reader({ value: item, done: false });
      return true;
    }
    if (this.queue.length >= this.options.capacity) {
      if (!this.overflowed) {
        this.overflowed = true;
        this.options.onOverflow?.();
      }
      return false;
    }
    this.queue.push(item);
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    for (const reader of this.waiting.splice(0)) reader({ value: undefined, done: true });
    this.options.onClose?.();
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.queue.shift();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
