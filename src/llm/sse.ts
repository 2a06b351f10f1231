/**
 * Server-sent events, decoded as the provider SDKs decode them: lines end in \n, \r\n or \r; a
 * blank line ends a record; `data:` lines join with \n; `event:` names it; `:` lines are comments;
 * one space after the colon is dropped; a record left open at the end of the body still counts.
 */

export interface SseEvent {
  /** The record's `event:` field; null when it had none. */
  event: string | null;
  data: string;
}

/** Decodes text pieces (as they arrive) into events. */
export async function* sseEvents(pieces: AsyncIterable<string>): AsyncGenerator<SseEvent> {
  const record = new SseRecord();
  let buffer = "";
  // Where the search for the next line end resumes: a long line is scanned once, not per piece.
  let scanned = 0;
  for await (const piece of pieces) {
    buffer += piece;
    let start = 0;
    for (;;) {
      const end = lineEnd(buffer, Math.max(start, scanned));
      // A \r as the last character may be the first half of \r\n: wait for the next piece.
      if (end < 0 || (buffer[end] === "\r" && end === buffer.length - 1)) break;
      const event = record.line(buffer.slice(start, end));
      start = end + (buffer[end] === "\r" && buffer[end + 1] === "\n" ? 2 : 1);
      if (event) yield event;
    }
    buffer = buffer.slice(start);
    scanned = buffer.endsWith("\r") ? buffer.length - 1 : buffer.length;
  }
  if (buffer) {
    const event = record.line(buffer.endsWith("\r") ? buffer.slice(0, -1) : buffer);
    if (event) yield event;
  }
  const last = record.line("");
  if (last) yield last;
}

/** Index of the next \n or \r at or after `from`; -1 when none. */
function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return i;
  }
  return -1;
}

class SseRecord {
  private event: string | null = null;
  private data: string[] = [];

  /** Takes one line; returns the finished record at a blank line that ends one. */
  line(line: string): SseEvent | undefined {
    if (line === "") {
      if (this.event === null && this.data.length === 0) return undefined;
      const done = { event: this.event, data: this.data.join("\n") };
      this.event = null;
      this.data = [];
      return done;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    return undefined;
  }
}
