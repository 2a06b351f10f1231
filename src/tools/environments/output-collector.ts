import type { SpillWriter } from "./spill-writer.js";

export interface CollectorOptions {
  /** Bytes of the rolling tail (default: the head's `cap`). */
  tailCap?: number;
  /** The line put where bytes were dropped. */
  marker?: (droppedBytes: number) => string;
}

const defaultMarker = (dropped: number): string =>
  `[... ${dropped} bytes of output dropped (over the capture limit) ...]`;

/**
 * Bounded capture of a process's output: the first `cap` bytes and a rolling last `tailCap` bytes
 * are kept; anything between is counted and dropped, so a runaway command cannot exhaust memory.
 * With a spill writer, the moment anything would be dropped everything so far is written to it, and
 * every later chunk too: the file ends up with the complete output.
 */
export class OutputCollector {
  private readonly head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  private droppedBytes = 0;

  private spilling = false;
  private readonly tailCap: number;
  private readonly marker: (droppedBytes: number) => string;

  constructor(
    private readonly cap: number,
    private readonly spill?: SpillWriter,
    options: CollectorOptions = {},
  ) {
    this.tailCap = options.tailCap ?? cap;
    this.marker = options.marker ?? defaultMarker;
  }

  get dropped(): number {
    return this.droppedBytes;
  }

  /** Every byte pushed so far, kept or dropped. */
  get bytes(): number {
    return this.headLen + this.tailLen + this.droppedBytes;
  }

  /** The spill file, when the output outgrew the capture and the file was written without error. */
  finish(): string | undefined {
    return this.spilling ? this.spill?.finish() : undefined;
  }

  push(data: Buffer | string): void {
    let chunk = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    if (this.spill) {
      if (!this.spilling && this.headLen + this.tailLen + chunk.length > this.cap + this.tailCap) {
        this.spilling = true;
        for (const kept of [...this.head, ...this.tail]) this.spill.write(kept);
      }
      if (this.spilling) this.spill.write(chunk);
    }
    if (this.headLen < this.cap) {
      const room = this.cap - this.headLen;
      if (chunk.length <= room) {
        this.head.push(chunk);
        this.headLen += chunk.length;
        return;
      }
      this.head.push(chunk.subarray(0, room));
      this.headLen = this.cap;
      chunk = chunk.subarray(room);
    }
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    let excess = this.tailLen - this.tailCap;
    if (excess <= 0) return;
    let drop = 0;
    while (excess > 0) {
      const first = this.tail[drop]!;
      if (first.length <= excess) {
        excess -= first.length;
        this.tailLen -= first.length;
        this.droppedBytes += first.length;
        drop += 1;
      } else {
        this.tail[drop] = first.subarray(excess);
        this.tailLen -= excess;
        this.droppedBytes += excess;
        excess = 0;
      }
    }
    if (drop > 0) this.tail = this.tail.slice(drop);
  }

  /** Everything kept, decoded as UTF-8, with a marker where bytes were dropped. */
  text(): string {
    if (this.droppedBytes === 0) return Buffer.concat([...this.head, ...this.tail]).toString("utf8");
    const head = Buffer.concat(this.head)
      .toString("utf8")
      .replace(/\uFFFD+$/, "");
    const tail = Buffer.concat(this.tail)
      .toString("utf8")
      .replace(/^\uFFFD+/, "");
    return `${head}\n${this.marker(this.droppedBytes)}\n${tail}`;
  }
}
