import { describe, expect, it } from "vitest";
import { ADDED_CLOSE, splitMessage } from "../../src/runtime/delivery/split.js";
import { seededRandom } from "../support/prng.js";

const WORDS = [
  "alpha",
  "beta",
  "gamma",
  "δέλτα",
  "混合",
  "テスト",
  "🙂",
  "👩‍💻",
  "x",
  "longer-word",
  "a.b",
  "end.",
];

/** Prose, lists, long unbroken tokens and fenced code blocks, in random proportions. */
function randomText(rand: () => number, length: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  let out = "";
  while (out.length < length) {
    const r = rand();
    if (r < 0.15) {
      const lines = 1 + Math.floor(rand() * 60);
      const body = Array.from(
        { length: lines },
        () => `  ${pick(WORDS)}(${Math.floor(rand() * 1e6)}); ${pick(WORDS)}`,
      );
      if (rand() < 0.2) body.splice(Math.floor(lines / 2), 0, "");
      out += `\`\`\`${pick(["python", "ts", "", "bash"])}\n${body.join("\n")}\n\`\`\`\n\n`;
    } else if (r < 0.2) {
      out += `${"z".repeat(1 + Math.floor(rand() * 900))} `;
    } else if (r < 0.3) {
      out += "\n\n";
    } else if (r < 0.4) {
      out += `- ${pick(WORDS)} ${pick(WORDS)}\n`;
    } else if (r < 0.5) {
      out += `${pick(WORDS)}. `;
    } else {
      out += `${pick(WORDS)} `;
    }
  }
  return out;
}

/**
 * Whether a code block is open at the end of `text` (complete lines only), by CommonMark's rule: a
 * fence opens with 3+ backticks and an optional info string, and only a bare fence at least as long closes it.
 */
function insideCode(text: string): boolean {
  const lines = text.split("\n");
  lines.pop();
  let open = 0;
  for (const line of lines) {
    const m = /^ {0,3}(`{3,})([^`]*)$/.exec(line);
    if (!m) continue;
    if (open === 0) open = m[1]!.length;
    else if (m[1]!.length >= open && m[2]!.trim() === "") open = 0;
  }
  return open > 0;
}

/** Undoes the fences splitMessage adds; fails the test when one is missing where it must be. */
function rejoin(chunks: string[]): string {
  let out = "";
  chunks.forEach((chunk, i) => {
    let body = chunk;
    if (insideCode(out)) {
      const reopen = /^```[^\n`]*\n/.exec(body);
      expect(reopen, `chunk ${i} continues a code block: it must reopen it`).not.toBeNull();
      body = body.slice(reopen![0].length);
    }
    if (
      i < chunks.length - 1 &&
      body.endsWith(ADDED_CLOSE) &&
      insideCode(`${out}${body.slice(0, -ADDED_CLOSE.length)}\n`)
    ) {
      body = body.slice(0, -ADDED_CLOSE.length);
    }
    out += body;
  });
  return out;
}

function checkChunks(text: string, limit: number, chunks: string[]): void {
  for (const [i, chunk] of chunks.entries()) {
    expect(chunk.length, `chunk ${i} of ${chunks.length} at limit ${limit}`).toBeLessThanOrEqual(limit);
    expect(chunk.length).toBeGreaterThan(0);
    // Each chunk renders on its own: every code block it opens, it closes (the input's own tail aside).
    if (i < chunks.length - 1)
      expect(insideCode(`${chunk}\n`), `chunk ${i} leaves a code block open`).toBe(false);
    const first = chunk.charCodeAt(0);
    const last = chunk.charCodeAt(chunk.length - 1);
    expect(first >= 0xdc00 && first <= 0xdfff, "chunk starts with half a surrogate pair").toBe(false);
    expect(last >= 0xd800 && last <= 0xdbff, "chunk ends with half a surrogate pair").toBe(false);
  }
  expect(rejoin(chunks)).toBe(text);
}

describe("splitMessage", () => {
  it("keeps a text within the limit whole, and gives nothing for an empty one", () => {
    expect(splitMessage("hello", 4096)).toEqual(["hello"]);
    expect(splitMessage("", 4096)).toEqual([]);
    expect(() => splitMessage("hello", 8)).toThrow(RangeError);
  });

  it("cuts at paragraph breaks before lines, sentences and spaces", () => {
    const paragraph = (n: number) => `Paragraph ${n}. ${"word ".repeat(30).trim()}.\nSecond line of it.`;
    const text = Array.from({ length: 12 }, (_, i) => paragraph(i)).join("\n\n");
    const chunks = splitMessage(text, 400);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.endsWith("\n\n")).toBe(true);
    expect(chunks.join("")).toBe(text);
  });

  it("falls back to lines, then sentences, then spaces, then a hard cut", () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n");
    for (const chunk of splitMessage(lines, 100).slice(0, -1)) expect(chunk.endsWith("\n")).toBe(true);

    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(" ");
    for (const chunk of splitMessage(sentences, 100).slice(0, -1)) expect(chunk).toMatch(/\. $/);

    const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
    for (const chunk of splitMessage(words, 50).slice(0, -1)) expect(chunk.endsWith(" ")).toBe(true);

    const solid = "y".repeat(1000);
    const hard = splitMessage(solid, 100);
    expect(hard.every((c) => c.length <= 100)).toBe(true);
    expect(hard.join("")).toBe(solid);
  });

  it("closes a code block it must cut and reopens it with its language in the next chunk", () => {
    const code = Array.from({ length: 80 }, (_, i) => `print(${i})  # a line of python`).join("\n");
    const text = `Here is the script:\n\n\`\`\`python\n${code}\n\`\`\`\n\nThat is all.`;
    const chunks = splitMessage(text, 500);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks[0]!.endsWith(ADDED_CLOSE)).toBe(true);
    for (const chunk of chunks.slice(1, -1)) {
      expect(chunk.startsWith("```python\n")).toBe(true);
      expect(chunk.endsWith(ADDED_CLOSE)).toBe(true);
    }
    expect(chunks.at(-1)!.startsWith("```python\n")).toBe(true);
    expect(chunks.at(-1)!.endsWith("That is all.")).toBe(true);
    checkChunks(text, 500, chunks);
  });

  it("never breaks a fence line, and does not mistake a fence-like tail of a cut line for one", () => {
    const text = `${"a".repeat(90)} \`\`\`not a fence\n${"b ".repeat(200)}`;
    checkChunks(text, 100, splitMessage(text, 100));
    const fenced = `${"c".repeat(95)}\n\`\`\`typescript\nconst x = 1;\n\`\`\`\n${"d ".repeat(80)}`;
    checkChunks(fenced, 100, splitMessage(fenced, 100));
  });

  it("a 40 000-character answer with several code blocks: every chunk fits, renders alone, and rejoins", () => {
    const rand = seededRandom(40_000);
    let text = "";
    let block = 0;
    while (text.length < 40_000) {
      text += `## Part ${block}\n\n${randomText(rand, 1500).replace(/```/g, "'''")}\n\n`;
      const lang = ["python", "typescript", "bash", "sql"][block % 4]!;
      const lines = 20 + ((block * 37) % 200);
      const body = Array.from(
        { length: lines },
        (_, i) => `    value_${block}_${i} = compute(${i}, "${"q".repeat(i % 30)}")`,
      );
      text += `\`\`\`${lang}\n${body.join("\n")}\n\`\`\`\n\n`;
      block++;
    }
    const chunks = splitMessage(text, 4096);
    expect(chunks.length).toBeGreaterThanOrEqual(10);
    checkChunks(text, 4096, chunks);
    // Every line of every code block arrives inside a code block of the same language.
    const reopened = chunks.filter((c) => /^```(python|typescript|bash|sql)\n/.test(c));
    expect(reopened.length).toBeGreaterThan(0);
  });

  it("property: random long inputs at random limits fit, render alone and rejoin exactly", () => {
    const rand = seededRandom(7);
    for (let run = 0; run < 300; run++) {
      const length = 1 + Math.floor(rand() * 12_000);
      const limit = rand() < 0.7 ? 16 + Math.floor(rand() * 600) : 1000 + Math.floor(rand() * 3100);
      const text = randomText(rand, length);
      const chunks = splitMessage(text, limit);
      checkChunks(text, limit, chunks);
    }
  });
});
