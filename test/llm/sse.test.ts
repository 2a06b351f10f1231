import { _iterSSEMessages } from "openai/core/streaming";
import { describe, expect, it } from "vitest";
import { type SseEvent, sseEvents } from "../../src/llm/sse.js";

async function* pieces(parts: readonly string[]): AsyncGenerator<string> {
  for (const p of parts) yield p;
}

async function decode(parts: readonly string[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of sseEvents(pieces(parts))) out.push(e);
  return out;
}

/** What the `openai` SDK decodes from the same bytes. */
async function sdkDecode(text: string): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of _iterSSEMessages(new Response(text), new AbortController()))
    out.push({ event: e.event, data: e.data });
  return out;
}

/** `text` cut at the given offsets. */
const cut = (text: string, at: readonly number[]): string[] => {
  const points = [0, ...[...at].sort((a, b) => a - b), text.length];
  return points.slice(1).map((end, i) => text.slice(points[i], end));
};

const STREAM = [
  ": OPENROUTER PROCESSING\n\n",
  'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n',
  'data:{"choices":[{"delta":{"content":"lo, é😀"}}]}\r\n\r\n',
  "event: error\r",
  'data: {"error":{"message":"two',
  '"}}\r\r',
  "data: first line\ndata: second line\nid: 7\nretry: 100\nunknown\n\n",
  "event: ping\n\n",
  "data: [DONE]\n\n",
  'data: {"after":"done"}',
].join("");

describe("server-sent events", () => {
  it("decodes every line ending, comments, multi-line data and a last record without a blank line", async () => {
    expect(await decode([STREAM])).toEqual([
      { event: null, data: '{"choices":[{"delta":{"content":"Hel"}}]}' },
      { event: null, data: '{"choices":[{"delta":{"content":"lo, é😀"}}]}' },
      { event: "error", data: '{"error":{"message":"two"}}' },
      { event: null, data: "first line\nsecond line" },
      { event: "ping", data: "" },
      { event: null, data: "[DONE]" },
      { event: null, data: '{"after":"done"}' },
    ]);
  });

  it("reads exactly what the openai SDK reads, however the body is split", async () => {
    const expected = await sdkDecode(STREAM);
    expect(await decode([STREAM])).toEqual(expected);
    // Every split point once (a \r\n cut in two included), then random multi-way splits.
    for (let i = 1; i < STREAM.length; i++) expect(await decode(cut(STREAM, [i]))).toEqual(expected);
    let seed = 7;
    const rand = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (let round = 0; round < 200; round++) {
      const at = Array.from({ length: 1 + Math.floor(rand() * 12) }, () =>
        Math.floor(rand() * STREAM.length),
      );
      expect(await decode(cut(STREAM, at))).toEqual(expected);
    }
  });

  it("ends a record at a lone \\r at the very end of the body", async () => {
    expect(await decode(["data: x\r"])).toEqual([{ event: null, data: "x" }]);
    expect(await sdkDecode("data: x\r")).toEqual([{ event: null, data: "x" }]);
  });

  it("joins a long line that arrives in many pieces", async () => {
    const long = `data: ${"a".repeat(200_000)}\r\n\r\n`;
    const parts = cut(
      long,
      Array.from({ length: 2000 }, (_, i) => (i + 1) * 100 + 1),
    );
    expect(await decode(parts)).toEqual([{ event: null, data: "a".repeat(200_000) }]);
  });
});
