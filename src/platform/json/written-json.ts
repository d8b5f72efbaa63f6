// A large answer whose JSON is written directly as bytes, without first building its objects or
// strings (a dashboard's range query answers hundreds of thousands of [time, "value"] pairs). The
// REST router sends `bytes()` as they are; anything else serialising it (GraphQL's response) gets
// the value from toJSON, built only then.
export class WrittenJson {
  /** `expectedBytes`: about how long the JSON will be, so its buffer is made once instead of doubled from 64 KiB (a 5 MB answer allocated 10 MB more). */
  constructor(
    private readonly write: (out: JsonBytes) => void,
    private readonly build: () => unknown,
    private readonly expectedBytes = 64 * 1024,
  ) {}

  bytes(): Buffer {
    const out = new JsonBytes(this.expectedBytes);
    this.write(out);
    return out.done();
  }

  toJSON(): unknown {
    return this.build();
  }
}

/** The body to send for `value`: a WrittenJson's bytes, else JSON.stringify's text. */
export function jsonBodyOf(value: unknown): Buffer | string {
  return value instanceof WrittenJson ? value.bytes() : JSON.stringify(value);
}

/** A growing buffer of JSON: ASCII text (numbers, punctuation) copied a character at a time, anything else as UTF-8. */
export class JsonBytes {
  private buffer: Buffer;
  private length = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(Math.max(1024, initialBytes));
  }

  /** Text known to be ASCII (a number as JavaScript writes it, JSON punctuation). */
  ascii(text: string): void {
    this.reserve(text.length);
    for (let i = 0; i < text.length; i += 1) this.buffer[this.length + i] = text.charCodeAt(i);
    this.length += text.length;
  }

  /**
   * The buffer, with at least `more` bytes free from `written`, for a caller writing many small
   * pieces itself (a range's points); it tells where it stopped with wroteTo. The buffer may be
   * another one after the next call that writes.
   */
  room(more: number): Buffer {
    this.reserve(more);
    return this.buffer;
  }

  /** Bytes up to `end` of room()'s buffer are written. */
  wroteTo(end: number): void {
    this.length = end;
  }

  /** Any text, as UTF-8 (label values may hold anything; JSON.stringify has escaped them). */
  utf8(text: string): void {
    this.reserve(Buffer.byteLength(text));
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  /** Bytes [from, to) of ones made once and written many times (a step's `,[time,"`, a kept series' text). */
  raw(bytes: Uint8Array, from = 0, to = bytes.length): void {
    this.reserve(to - from);
    const { buffer } = this;
    if (to - from > 64) {
      // A long run (a kept series' text): copied natively, a loop's per-byte cost is what it saves.
      buffer.set(bytes.subarray(from, to), this.length);
      this.length += to - from;
      return;
    }
    let at = this.length;
    for (let i = from; i < to; i += 1) buffer[at++] = bytes[i]!;
    this.length = at;
  }

  /** How many bytes are written so far. */
  get written(): number {
    return this.length;
  }

  /** The bytes written so far: a view, which writing more may leave behind (the writer's last call gives the answer's). */
  done(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private reserve(more: number): void {
    if (this.length + more <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + more));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}
