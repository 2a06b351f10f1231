import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import {
  ContextCompressor,
  isSummaryMessage,
  type Summarise,
} from "../../../src/agent/compression/compressor.js";
import { estimateMessagesTokens } from "../../../src/agent/compression/estimate.js";
import { toolPairsValid } from "../../../src/agent/compression/sanitize.js";
import { SUMMARY_PREFIX } from "../../../src/agent/compression/summary.js";
import type { ChatMessage } from "../../../src/llm/types.js";
import { alternates, transcript } from "./helpers.js";

const okSummary =
  (calls: ChatMessage[][]): Summarise =>
  async (messages) => {
    calls.push(messages);
    return { ok: true, text: "## Active Task\nsomething\n\n## Completed Actions\n1. read files" };
  };

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && typeof m.content === "string") return m.content;
  }
  return "";
}

describe("ContextCompressor", () => {
  it("summarises the middle, keeps head, tail and the latest request verbatim", async () => {
    const calls: ChatMessage[][] = [];
    const c = new ContextCompressor({
      contextLength: 32_000,
      summarise: okSummary(calls),
      settings: { protect_last_n: 6 },
    });
    const msgs = transcript(30);
    const before = lastUserText(msgs);
    const r = await c.compress(msgs, { forceSummary: true, extraContext: "[Your task list] - item" });
    expect(r.mode).toBe("summary");
    expect(r.tokensAfter).toBeLessThan(r.tokensBefore / 3);
    expect(r.messages[0]).toEqual(msgs[0]);
    expect(r.messages[1]).toEqual(msgs[1]);
    expect(toolPairsValid(r.messages)).toBe(true);
    expect(alternates(r.messages)).toBe(true);
    const summary = r.messages.find(isSummaryMessage)!;
    expect(summary.content).toContain(SUMMARY_PREFIX);
    expect(summary.content).toContain(`## Active Task\n${before}`);
    expect(summary.content).toContain("[Your task list] - item");
    expect(r.messages.some((m) => m.role === "user" && m.content === before)).toBe(true);
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(calls[0])).toContain(before);
    expect(c.stats.compressions).toBe(1);
  });

  it("updates the previous summary on the next compression", async () => {
    const calls: ChatMessage[][] = [];
    const c = new ContextCompressor({
      contextLength: 32_000,
      summarise: okSummary(calls),
      settings: { protect_last_n: 6 },
    });
    const first = await c.compress(transcript(20), { forceSummary: true });
    const grown = [...first.messages, ...transcript(10).slice(1)];
    const second = await c.compress(grown, { forceSummary: true });
    expect(second.mode).toBe("summary");
    const prompt = JSON.stringify(calls[1]);
    expect(prompt).toContain("EARLIER NOTES");
    expect(prompt).toContain("1. read files");
    expect(second.messages.filter(isSummaryMessage)).toHaveLength(1);
    expect(toolPairsValid(second.messages)).toBe(true);
  });

  it("keeps the request when one user turn is followed by many tool calls", async () => {
    const c = new ContextCompressor({ contextLength: 16_000, summarise: okSummary([]) });
    const msgs = transcript(1, 60);
    const request = lastUserText(msgs);
    const r = await c.compress(msgs, { forceSummary: true });
    expect(r.tokensAfter).toBeLessThan(r.tokensBefore / 2);
    expect(r.messages.some((m) => m.role === "user" && m.content === request)).toBe(true);
    expect(toolPairsValid(r.messages)).toBe(true);
  });

  it("falls back to a static note with a warning when the summary fails", async () => {
    const c = new ContextCompressor({
      contextLength: 32_000,
      summarise: async () => ({ ok: false, error: "provider down" }),
    });
    const r = await c.compress(transcript(30), { forceSummary: true });
    expect(r.mode).toBe("fallback");
    expect(r.warning).toContain("provider down");
    expect(JSON.stringify(r.messages)).toContain("could not be produced");
    expect(toolPairsValid(r.messages)).toBe(true);
    expect(c.stats.fallbacks).toBe(1);
  });

  it("with abort_on_summary_failure keeps the history unchanged and says why", async () => {
    const c = new ContextCompressor({
      contextLength: 32_000,
      summarise: async () => ({ ok: false, error: "provider down" }),
      settings: { abort_on_summary_failure: true },
    });
    const msgs = transcript(30);
    const r = await c.compress(msgs, { forceSummary: true });
    expect(r).toMatchObject({ mode: "none", compressed: false });
    expect(r.messages).toEqual(msgs);
    expect(r.warning).toMatch(/provider down.*history is kept/);
    expect(c.stats.compressions).toBe(0);
  });

  it("exposes the message-count trigger (0 turns it off)", () => {
    const summarise = async () => ({ ok: true as const, text: "x" });
    expect(new ContextCompressor({ summarise }).messageLimit).toBe(5000);
    expect(
      new ContextCompressor({ summarise, settings: { hygiene_hard_message_limit: 0 } }).messageLimit,
    ).toBe(0);
  });

  it("redacts secrets sent to the summariser", async () => {
    const calls: ChatMessage[][] = [];
    const c = new ContextCompressor({
      contextLength: 32_000,
      summarise: okSummary(calls),
      redact: (t) => t.replaceAll("sk-SECRET", "[REDACTED]"),
    });
    const msgs = transcript(30);
    msgs.splice(
      2,
      0,
      { role: "assistant", content: "the key is sk-SECRET" },
      { role: "user", content: "thanks" },
    );
    await c.compress(msgs, { forceSummary: true });
    expect(JSON.stringify(calls[0])).not.toContain("sk-SECRET");
  });

  it("prunes without a summary call when that is enough", async () => {
    const calls: ChatMessage[][] = [];
    const c = new ContextCompressor({ contextLength: 200_000, summarise: okSummary(calls) });
    const r = await c.compress(transcript(30));
    expect(r.mode).toBe("pruned");
    expect(calls).toHaveLength(0);
    expect(r.tokensAfter).toBeLessThan(r.tokensBefore);
  });

  it("stops compressing after two passes without progress (anti-thrashing)", async () => {
    const c = new ContextCompressor({ contextLength: 8_000, summarise: okSummary([]) });
    // Almost everything is in the protected tail: a pass can free next to nothing.
    const msgs: ChatMessage[] = [
      { role: "system", content: "s" },
      { role: "user", content: "x ".repeat(6000) },
      { role: "assistant", content: "y ".repeat(6000) },
      { role: "user", content: "z ".repeat(6000) },
    ];
    const tokens = estimateMessagesTokens(msgs);
    expect(c.shouldCompress(tokens)).toBe(true);
    await c.compress(msgs);
    expect(c.shouldCompress(tokens)).toBe(true);
    await c.compress(msgs);
    expect(c.shouldCompress(tokens)).toBe(false);
    // A model switch recalibrates: a fresh window gets fresh attempts.
    c.updateModel(8_000);
    expect(c.shouldCompress(tokens)).toBe(true);
  });

  it("recalibrates the threshold on a model switch", () => {
    const c = new ContextCompressor({ contextLength: 200_000, summarise: okSummary([]) });
    expect(c.shouldCompress(20_000)).toBe(false);
    c.updateModel(32_000);
    expect(c.thresholdTokens).toBe(16_000);
    expect(c.shouldCompress(20_000)).toBe(true);
  });
});

describe("token estimate vs a real tokenizer", () => {
  it("stays within 30% of cl100k on prose, code and JSON", () => {
    const enc = getEncoding("cl100k_base");
    const samples = [
      "The quick brown fox jumps over the lazy dog. ".repeat(50),
      transcript(3)
        .map((m) => (typeof m.content === "string" ? m.content : ""))
        .join("\n"),
      JSON.stringify({
        items: Array.from({ length: 100 }, (_, i) => ({ id: i, name: `item-${i}`, ok: i % 2 === 0 })),
      }),
      "日本語のテキストです。これはテストです。".repeat(20),
    ];
    for (const text of samples) {
      const real = enc.encode(text).length;
      const est = estimateMessagesTokens([{ role: "user", content: text }]);
      expect(Math.abs(est - real) / real).toBeLessThan(0.3);
    }
  });
});
