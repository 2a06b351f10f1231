import { describe, expect, it } from "vitest";
import { applyAnthropicCacheControl } from "../../src/llm/caching.js";

type Block = { type: string; text?: string; cache_control?: unknown };
type Msg = { role: string; content: string | Block[] };

const e5 = { type: "ephemeral" };
const e1h = { type: "ephemeral", ttl: "1h" };

describe("applyAnthropicCacheControl", () => {
  const system: Block[] = [
    { type: "text", text: "identity" },
    { type: "text", text: "memory" },
  ];
  const messages: Msg[] = [
    { role: "user", content: "one" },
    { role: "assistant", content: [{ type: "text", text: "two" }] },
    { role: "user", content: "three" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "four" },
        { type: "tool_use", text: "call" },
      ],
    },
    { role: "user", content: [{ type: "tool_result" }] },
  ];

  it("marks the last system block and the last block of the last 3 messages", () => {
    const out = applyAnthropicCacheControl(system, messages, "5m");
    expect(out.system.map((b) => b.cache_control)).toEqual([undefined, e5]);
    expect(out.messages[0]).toEqual({ role: "user", content: "one" });
    expect(out.messages[1]).toEqual(messages[1]);
    expect(out.messages[2]).toEqual({
      role: "user",
      content: [{ type: "text", text: "three", cache_control: e5 }],
    });
    const fourth = out.messages[3]!.content as Block[];
    expect(fourth.map((b) => b.cache_control)).toEqual([undefined, e5]);
    expect((out.messages[4]!.content as Block[])[0]!.cache_control).toEqual(e5);
  });

  it("adds ttl 1h when asked", () => {
    const out = applyAnthropicCacheControl(system, messages, "1h");
    expect(out.system[1]!.cache_control).toEqual(e1h);
    expect((out.messages[4]!.content as Block[])[0]!.cache_control).toEqual(e1h);
  });

  it("does not mutate its inputs", () => {
    const before = JSON.stringify({ system, messages });
    applyAnthropicCacheControl(system, messages, "1h");
    expect(JSON.stringify({ system, messages })).toBe(before);
  });

  it("ignores system-role messages when counting and handles short conversations", () => {
    const out = applyAnthropicCacheControl(
      [],
      [{ role: "system", content: "s" } as Msg, { role: "user", content: "hi" }],
      undefined,
    );
    expect(out.system).toEqual([]);
    expect(out.messages[0]).toEqual({ role: "system", content: "s" });
    expect(out.messages[1]).toEqual({
      role: "user",
      content: [{ type: "text", text: "hi", cache_control: e5 }],
    });
  });

  it("never marks thinking blocks: the marker goes on the block before the last thinking one", () => {
    const msgs: Msg[] = [{ role: "assistant", content: [{ type: "text", text: "a" }, { type: "thinking" }] }];
    const out = applyAnthropicCacheControl([], msgs, "5m");
    expect(out.messages[0]!.content).toEqual([
      { type: "text", text: "a", cache_control: e5 },
      { type: "thinking" },
    ]);
  });
});
