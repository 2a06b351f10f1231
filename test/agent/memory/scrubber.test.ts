import { describe, expect, it } from "vitest";
import { stripMemoryContext } from "../../../src/agent/memory/fence.js";
import { StreamingContextScrubber } from "../../../src/agent/memory/scrubber.js";
import { seededRandom } from "../../support/prng.js";

/** Feeds `chunks` through one scrubber; returns what each feed released and the flush. */
function run(chunks: readonly string[]): { outputs: string[]; flushed: string; text: string } {
  const s = new StreamingContextScrubber();
  const outputs = chunks.map((c) => s.feed(c));
  const flushed = s.flush();
  return { outputs, flushed, text: outputs.join("") + flushed };
}

const chars = (text: string): string[] => [...text];

describe("StreamingContextScrubber", () => {
  it("releases text without tags at once, chunk by chunk", () => {
    expect(run(["Hello, ", "world", " a<b and c>d"]).outputs).toEqual(["Hello, ", "world", " a<b and c>d"]);
  });

  it("removes a span whose tags are split one character per chunk", () => {
    const text = "Before <memory-context>\nrecalled: the dog is Biscuit\n</memory-context> after.";
    const { text: out } = run(chars(text));
    expect(out).toBe("Before  after.");
  });

  it("matches tags in any case and with whitespace inside the brackets", () => {
    const text = "a< MEMORY-Context\t>x</\nmemory-CONTEXT >b";
    expect(run(chars(text)).text).toBe("ab");
    expect(run([text]).text).toBe("ab");
  });

  it("holds back only a possible tag, and releases it once it cannot be one", () => {
    const s = new StreamingContextScrubber();
    expect(s.feed("We walked down <mem")).toBe("We walked down ");
    expect(s.feed("ory lane")).toBe("<memory lane");
    expect(s.feed(" <")).toBe(" ");
    expect(s.feed("<")).toBe("<");
    expect(s.feed(" 3")).toBe("< 3");
    expect(s.flush()).toBe("");
  });

  it("releases a partial tag left at the end of a stream that was outside any span", () => {
    const s = new StreamingContextScrubber();
    expect(s.feed("see </memory-cont")).toBe("see ");
    expect(s.flush()).toBe("</memory-cont");
  });

  it("drops an unclosed span at the end of the stream", () => {
    const s = new StreamingContextScrubber();
    expect(s.feed("answer <memory-context>recalled fa")).toBe("answer ");
    expect(s.feed("cts that must stay hidden </memory-con")).toBe("");
    expect(s.flush()).toBe("");
  });

  it("drops stray closing tags and ignores opening tags inside a span", () => {
    expect(run(["a</memory-context>b"]).text).toBe("ab");
    expect(run(chars("<memory-context>a<memory-context>b</memory-context>c</memory-context>d")).text).toBe(
      "cd",
    );
  });

  it("starts clean after a flush", () => {
    const s = new StreamingContextScrubber();
    s.feed("x <memory-context> unclosed");
    expect(s.flush()).toBe("");
    expect(s.feed("visible again")).toBe("visible again");
  });
});

const OPENERS = ["<memory-context>", "<MEMORY-CONTEXT>", "< memory-context >", "<\n memory-Context\t>"];
const CLOSERS = ["</memory-context>", "</ Memory-Context >", "<\t/\nmemory-context>", "< / MEMORY-context>"];
/** Things that look like the start of a tag but never become one. */
const DECOYS = [
  "<",
  "<mem",
  "<memory",
  "<memory-cont",
  "</memory-conte",
  "< / mem",
  "<memory lane>",
  "<<",
  "</",
  "> <",
];
/** No "x": visible text can never spell the tag name, so what the user should see is known exactly. */
const VISIBLE_ALPHABET = "abcdefghijklmnopqrstuvwyz ABC\n\t<>/-.,!?";
const SECRET_ALPHABET = `${VISIBLE_ALPHABET}xX`;

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

function randomText(rand: () => number, alphabet: string, pieces: readonly string[], maxLen: number): string {
  let out = "";
  const len = Math.floor(rand() * maxLen);
  while (out.length < len) out += rand() < 0.15 ? pick(rand, pieces) : pick(rand, [...alphabet]);
  return out;
}

/** Span content: anything (nested openers, decoys, the bare name) except a closing tag. */
function secret(rand: () => number): string {
  let text = randomText(
    rand,
    SECRET_ALPHABET,
    [...DECOYS, ...OPENERS, "memory-context", "</memory-context"],
    60,
  );
  const closing = /<[ \t\r\n]*\/[ \t\r\n]*memory-context[ \t\r\n]*>/gi;
  while (closing.test(text)) text = text.replace(closing, "");
  return text;
}

/** A text with 0–3 fenced spans (the last maybe unclosed) and what the user should see of it. */
function sample(rand: () => number): { text: string; visible: string } {
  let text = "";
  let visible = "";
  const spans = Math.floor(rand() * 4);
  const addVisible = () => {
    const v = randomText(rand, VISIBLE_ALPHABET, DECOYS, 40);
    text += v;
    visible += v;
  };
  addVisible();
  for (let i = 0; i < spans; i++) {
    text += pick(rand, OPENERS) + secret(rand);
    if (i === spans - 1 && rand() < 0.2) return { text, visible }; // unclosed until the end
    text += pick(rand, CLOSERS);
    if (rand() < 0.1) text += pick(rand, CLOSERS); // a stray closing tag
    addVisible();
  }
  return { text, visible };
}

function randomChunks(rand: () => number, text: string): string[] {
  const max = pick(rand, [1, 2, 3, 5, 8, 17, 64, Math.max(1, text.length)]);
  const chunks: string[] = [];
  for (let i = 0; i < text.length; ) {
    const size = 1 + Math.floor(rand() * max);
    chunks.push(text.slice(i, i + size));
    i += size;
  }
  return chunks;
}

describe("StreamingContextScrubber fuzz", () => {
  it("agrees with the one-shot strip for any chunking and never leaks a span", () => {
    for (let seed = 1; seed <= 4000; seed++) {
      const rand = seededRandom(seed);
      const { text, visible } = sample(rand);
      const chunks = randomChunks(rand, text);
      const out = run(chunks).text;
      const context = `seed ${seed}: ${JSON.stringify(chunks)}`;
      expect(stripMemoryContext(text), context).toBe(visible);
      expect(out, context).toBe(visible);
      expect(out.toLowerCase(), context).not.toContain("memory-context");
    }
  });
});
