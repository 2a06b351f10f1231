import { describe, expect, it } from "vitest";
import { assemble } from "../../../src/agent/compression/assemble.js";
import { findBoundaries, lastUserIndex } from "../../../src/agent/compression/boundaries.js";
import { estimateMessageTokens } from "../../../src/agent/compression/estimate.js";
import { pruneMessages, shrinkToolArgs, summariseToolResult } from "../../../src/agent/compression/prune.js";
import { sanitizeToolPairs, toolPairsValid } from "../../../src/agent/compression/sanitize.js";
import { SUMMARY_END_MARKER, summaryBudget } from "../../../src/agent/compression/summary.js";
import type { ChatMessage } from "../../../src/llm/types.js";
import { transcript } from "./helpers.js";

describe("prune", () => {
  it("replaces old large tool results with one-line summaries and leaves the tail alone", () => {
    const msgs = transcript(5);
    const tailStart = msgs.length - 4;
    const { messages, stats } = pruneMessages(msgs, 1, tailStart);
    expect(stats.prunedResults).toBeGreaterThan(0);
    for (let i = 0; i < tailStart; i++) {
      const m = messages[i]!;
      if (m.role === "tool") expect(m.content).toMatch(/^\[read_file\] read src\/mod\d_\d\.ts \(/);
    }
    expect(messages.slice(tailStart)).toEqual(msgs.slice(tailStart));
    expect(toolPairsValid(messages)).toBe(true);
  });

  it("keeps only the newest copy of identical tool results", () => {
    const big = "same output line\n".repeat(100);
    const msgs: ChatMessage[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "a", type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } },
        ],
      },
      { role: "tool", tool_call_id: "a", name: "terminal", content: big },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "b", type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } },
        ],
      },
      { role: "tool", tool_call_id: "b", name: "terminal", content: big },
      { role: "assistant", content: "done" },
    ];
    const { messages, stats } = pruneMessages(msgs, 0, 4);
    expect(stats.dedupedResults).toBe(1);
    expect((messages[2] as { content: string }).content).toContain("duplicate");
    expect((messages[4] as { content: string }).content).toBe(big);
  });

  it("shrinks tool-call arguments to valid JSON", () => {
    const raw = JSON.stringify({
      path: "/a.md",
      content: "# title\n".repeat(500),
      nested: { list: ["x".repeat(900)] },
    });
    const out = shrinkToolArgs(raw)!;
    expect(out.length).toBeLessThan(raw.length);
    const parsed = JSON.parse(out) as { path: string; content: string; nested: { list: string[] } };
    expect(parsed.path).toBe("/a.md");
    expect(parsed.content).toContain("truncated");
    expect(shrinkToolArgs('{"content": "unterminated')).toBe("{}");
    expect(shrinkToolArgs('{"a":1}')).toBeUndefined();
  });

  it("strips old inline images", () => {
    const msgs: ChatMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(5000)}` } },
        ],
      },
      { role: "assistant", content: "ok" },
      { role: "user", content: "next" },
    ];
    const { messages, stats } = pruneMessages(msgs, 0, 2);
    expect(stats.strippedImages).toBe(1);
    expect(JSON.stringify(messages[0])).not.toContain("base64");
  });

  it("describes terminal results with command and exit code", () => {
    expect(summariseToolResult("terminal", { command: "npm test" }, '{"output":"a\\nb","exit_code":0}')).toBe(
      "[terminal] ran `npm test` -> exit 0, 1 lines output (pruned)",
    );
  });
});

describe("boundaries", () => {
  const cost = (msgs: ChatMessage[]) => (i: number) => estimateMessageTokens(msgs[i]!);

  it("never starts the tail on a tool result and keeps at least three messages", () => {
    const msgs = transcript(20);
    for (const budget of [10, 200, 800, 3000, 10_000]) {
      const { start, end } = findBoundaries(msgs, 3, budget, cost(msgs));
      expect(msgs[start]!.role).not.toBe("tool");
      if (end < msgs.length) expect(msgs[end]!.role).not.toBe("tool");
      expect(msgs.length - end).toBeGreaterThanOrEqual(3);
      // The latest request joins the tail whenever the tail stays within 1.5× its budget.
      const last = lastUserIndex(msgs);
      let fromLast = 0;
      for (let i = last; i < msgs.length; i++) fromLast += estimateMessageTokens(msgs[i]!);
      if (fromLast <= 1.5 * budget) expect(end).toBeLessThanOrEqual(last);
    }
  });

  it("puts the head past the system prompt and protect_first_n messages, aligned forward", () => {
    const msgs = transcript(10);
    // system, user, assistant(call) → the tool result that follows joins the head too
    const { start } = findBoundaries(msgs, 2, 500, cost(msgs));
    expect(start).toBe(4);
  });
});

describe("assembly and sanitising", () => {
  it("picks a role that keeps alternation, else merges into the tail", () => {
    const sys: ChatMessage = { role: "system", content: "s" };
    const a = assemble([sys], "SUM", [{ role: "assistant", content: "x" }]);
    expect(a.summaryRole).toBe("user");
    expect(a.messages[1]!.content).toContain(SUMMARY_END_MARKER);
    const b = assemble([sys, { role: "user", content: "u" }], "SUM", [{ role: "user", content: "later" }]);
    expect(b.summaryRole).toBe("assistant");
    const c = assemble([sys, { role: "user", content: "u" }], "SUM", [
      { role: "assistant", content: "reply" },
    ]);
    expect(c.summaryRole).toBe("merged");
    expect(c.messages).toHaveLength(3);
    expect(c.messages[2]!.content).toContain("SUM");
    expect(c.messages[2]!.content).toContain("reply");
  });

  it("drops orphaned tool results and unanswered calls", () => {
    const msgs: ChatMessage[] = [
      { role: "user", content: "u" },
      { role: "tool", tool_call_id: "gone", content: "r" },
      {
        role: "assistant",
        content: "partial",
        tool_calls: [{ id: "x", type: "function", function: { name: "t", arguments: "{}" } }],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "y", type: "function", function: { name: "t", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "y", content: "ok" },
    ];
    const { messages, removed } = sanitizeToolPairs(msgs);
    expect(removed).toBe(2);
    expect(toolPairsValid(messages)).toBe(true);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant", "tool"]);
    expect(messages[1]).toEqual({ role: "assistant", content: "partial" });
  });

  it("sizes the summary at 20% of the compressed content within floor and cap", () => {
    expect(summaryBudget(1000)).toBe(2000);
    expect(summaryBudget(40_000)).toBe(8000);
    expect(summaryBudget(500_000)).toBe(12_000);
    expect(summaryBudget(500_000, 1600)).toBe(1600);
  });
});
