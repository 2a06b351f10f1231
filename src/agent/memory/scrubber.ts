/**
 * Removes `<memory-context>` spans from streamed text (seed 004 §9.4). A regex per delta cannot see
 * a tag split across deltas, so this is a character-level state machine: outside a span text is
 * released at once except a tail that may still become a tag; inside a span everything is dropped.
 * Tags are matched exactly as `stripMemoryContext` matches them (case-insensitive, whitespace allowed
 * inside the brackets), so feeding a text in any chunks yields what the one-shot strip yields.
 * Each character is looked at once: O(n) over the stream.
 */

const NAME = "memory-context";

/**
 * Where a possible tag has got to: none held; after "<" (whitespace, "/" or the name may follow);
 * after "</" (whitespace or the name); part-way through the name; after the name (whitespace or ">").
 */
type TagState = "none" | "lead" | "slash" | "name" | "trail";

const isSpace = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";

/** ASCII-only case folding, as a non-Unicode /i regex does. */
function lower(c: string): string {
  const code = c.charCodeAt(0);
  return code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : c;
}

export class StreamingContextScrubber {
  private inside = false;
  private tag: TagState = "none";
  private closing = false;
  private nameIndex = 0;
  /** The held-back characters of a possible tag (only "<", "/", whitespace and name letters). */
  private held = "";

  /** Takes the next chunk; returns the part that is safe to show now. */
  feed(chunk: string): string {
    let out = "";
    let i = 0;
    while (i < chunk.length) {
      if (this.tag === "none") {
        // Fast path: jump to the next "<", releasing (outside) or dropping (inside) what precedes it.
        const next = chunk.indexOf("<", i);
        const end = next < 0 ? chunk.length : next;
        if (!this.inside) out += chunk.slice(i, end);
        if (next < 0) break;
        this.tag = "lead";
        this.closing = false;
        this.held = "<";
        i = next + 1;
        continue;
      }
      const c = chunk[i]!;
      const step = this.advance(c);
      if (step === "more") {
        this.held += c;
        i += 1;
      } else if (step === "tag") {
        // A whole tag: it opens a span, closes one, or (stray close, nested open) changes nothing.
        this.inside = !this.closing;
        this.reset();
        i += 1;
      } else {
        // Not a tag after all. The held text holds no other "<", so no tag can start inside it:
        // release it (outside) and look at `c` afresh, since it may itself be a "<".
        if (!this.inside) out += this.held;
        this.reset();
      }
    }
    return out;
  }

  /** End of stream: a held partial tag outside a span is released; an unclosed span is dropped. */
  flush(): string {
    const out = this.inside ? "" : this.held;
    this.inside = false;
    this.reset();
    return out;
  }

  private reset(): void {
    this.tag = "none";
    this.held = "";
    this.nameIndex = 0;
  }

  private advance(c: string): "more" | "tag" | "no" {
    switch (this.tag) {
      case "lead":
        if (isSpace(c)) return "more";
        if (c === "/") {
          this.closing = true;
          this.tag = "slash";
          return "more";
        }
        return this.startName(c);
      case "slash":
        return isSpace(c) ? "more" : this.startName(c);
      case "name":
        if (lower(c) !== NAME[this.nameIndex]) return "no";
        this.nameIndex += 1;
        if (this.nameIndex === NAME.length) this.tag = "trail";
        return "more";
      case "trail":
        if (isSpace(c)) return "more";
        return c === ">" ? "tag" : "no";
      case "none":
        return "no";
    }
  }

  private startName(c: string): "more" | "no" {
    if (lower(c) !== NAME[0]) return "no";
    this.tag = "name";
    this.nameIndex = 1;
    return "more";
  }
}
