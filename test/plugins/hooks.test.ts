import { describe, expect, it } from "vitest";
import { HookBus, type HookProblem } from "../../src/agent/hooks.js";

function bus(timeoutMs = 2000): { hooks: HookBus; problems: HookProblem[] } {
  const problems: HookProblem[] = [];
  return { hooks: new HookBus({ timeoutMs, report: (p) => problems.push(p) }), problems };
}

const call = (args: Record<string, unknown> = {}) => ({ tool_name: "terminal", args, session_id: "s1" });

describe("HookBus", () => {
  it("has nothing until a handler is registered, and refuses names that are not hooks", async () => {
    const { hooks } = bus();
    expect(hooks.has("post_tool_call")).toBe(false);
    await hooks.emit("post_tool_call", {});
    expect(hooks.on({ name: "pre_tool_cal" as "pre_tool_call", label: "x", handler: () => {} })).toBe(false);
    expect(hooks.names()).toEqual([]);
    expect(hooks.on({ name: "post_tool_call", label: "x", handler: () => {} })).toBe(true);
    expect(hooks.has("post_tool_call")).toBe(true);
  });

  it("pre_tool_call: the first block wins and later handlers do not run", async () => {
    const { hooks } = bus();
    const seen: string[] = [];
    hooks.on({ name: "pre_tool_call", label: "a", handler: () => void seen.push("a") });
    hooks.on({
      name: "pre_tool_call",
      label: "b",
      handler: () => {
        seen.push("b");
        return { decision: "block", reason: "no shell today" };
      },
    });
    hooks.on({ name: "pre_tool_call", label: "c", handler: () => void seen.push("c") });
    expect(await hooks.beforeToolCall(call({ command: "ls" }))).toEqual({ blocked: "no shell today" });
    expect(seen).toEqual(["a", "b"]);
  });

  it("pre_tool_call: modify replaces the arguments for later handlers and for the call", async () => {
    const { hooks } = bus();
    const later: unknown[] = [];
    hooks.on({
      name: "pre_tool_call",
      label: "a",
      handler: () => ({ action: "modify", args: { command: "ls -la" } }),
    });
    hooks.on({
      name: "pre_tool_call",
      label: "b",
      handler: (p) => {
        later.push({ ...(p.args as object) });
        (p.args as Record<string, unknown>).command = "edited in place";
      },
    });
    expect(await hooks.beforeToolCall(call({ command: "ls" }))).toEqual({ args: { command: "ls -la" } });
    expect(later).toEqual([{ command: "ls -la" }]);
  });

  it("a block without a message still says who blocked", async () => {
    const { hooks } = bus();
    hooks.on({ name: "pre_tool_call", label: "plugin:guard", handler: () => ({ action: "block" }) });
    expect(await hooks.beforeToolCall(call())).toEqual({ blocked: "Blocked by the hook plugin:guard." });
  });

  it("an answer that throws when read is the handler's failure, not the tool call's", async () => {
    const { hooks, problems } = bus();
    hooks.on({
      name: "pre_tool_call",
      label: "plugin:tricky",
      handler: () => ({
        get action(): string {
          throw new Error("read me not");
        },
      }),
    });
    hooks.on({
      name: "transform_tool_result",
      label: "plugin:cyclic",
      handler: () => {
        const answer: Record<string, unknown> = { result: "x" };
        answer.self = answer;
        return answer;
      },
    });
    expect(await hooks.beforeToolCall(call({ command: "ls" }))).toEqual({ args: { command: "ls" } });
    expect(await hooks.transform("transform_tool_result", { result: "kept" }, "result")).toBe("kept");
    expect(problems.map((p) => [p.label, p.kind])).toEqual([
      ["plugin:tricky", "threw"],
      ["plugin:cyclic", "threw"],
    ]);
  });

  it("a throwing handler is reported with its label and the others still run", async () => {
    const { hooks, problems } = bus();
    const ran: string[] = [];
    hooks.on({
      name: "post_tool_call",
      label: "plugin:broken",
      handler: () => {
        throw new Error("boom");
      },
    });
    hooks.on({ name: "post_tool_call", label: "plugin:ok", handler: () => void ran.push("ok") });
    await hooks.emit("post_tool_call", call());
    expect(ran).toEqual(["ok"]);
    expect(problems).toEqual([
      { hook: "post_tool_call", label: "plugin:broken", kind: "threw", message: "failed: boom" },
    ]);
  });

  it("a handler past its time limit is skipped, reported, and its signal aborted", async () => {
    const { hooks, problems } = bus(50);
    let aborted = false;
    hooks.on({
      name: "pre_tool_call",
      label: "slow",
      handler: (_p, signal) =>
        new Promise(() => {
          signal.addEventListener("abort", () => {
            aborted = true;
          });
        }),
    });
    expect(await hooks.beforeToolCall(call({ n: 1 }))).toEqual({ args: { n: 1 } });
    expect(aborted).toBe(true);
    expect(problems[0]?.message).toBe("did not finish within 0.05 s; skipped");
  });

  it("transform hooks chain; an answer that is not text is reported; an empty llm answer is ignored", async () => {
    const { hooks, problems } = bus();
    hooks.on({ name: "transform_tool_result", label: "a", handler: (p) => `${p.result}+a` });
    hooks.on({ name: "transform_tool_result", label: "b", handler: (p) => ({ result: `${p.result}+b` }) });
    hooks.on({ name: "transform_tool_result", label: "c", handler: () => 42 });
    hooks.on({ name: "transform_tool_result", label: "d", handler: () => undefined });
    expect(await hooks.transform("transform_tool_result", { ...call(), result: "r" }, "result")).toBe(
      "r+a+b",
    );
    expect(problems.map((p) => p.label)).toEqual(["c"]);
    hooks.on({ name: "transform_llm_output", label: "e", handler: () => "" });
    expect(await hooks.transform("transform_llm_output", { response_text: "hi" }, "response_text")).toBe(
      "hi",
    );
  });

  it("pre_llm_call contexts are joined", async () => {
    const { hooks } = bus();
    hooks.on({ name: "pre_llm_call", label: "a", handler: () => "first" });
    hooks.on({ name: "pre_llm_call", label: "b", handler: () => ({ context: "second" }) });
    hooks.on({ name: "pre_llm_call", label: "c", handler: () => null });
    expect(await hooks.collectContext({})).toBe("first\n\nsecond");
  });

  it("tool hooks with a matcher fire for their tools only", async () => {
    const { hooks } = bus();
    const seen: unknown[] = [];
    hooks.on({
      name: "post_tool_call",
      label: "m",
      handler: (p) => void seen.push(p.tool_name),
      matches: (t) => t === "read_file",
    });
    await hooks.emit("post_tool_call", { tool_name: "terminal" });
    await hooks.emit("post_tool_call", { tool_name: "read_file" });
    expect(seen).toEqual(["read_file"]);
  });

  it("lazy registrations load on the first firing, once, in their place", async () => {
    const { hooks } = bus();
    let loads = 0;
    const order: string[] = [];
    hooks.on({ name: "post_tool_call", label: "first", handler: () => void order.push("first") });
    hooks.on({
      name: "post_tool_call",
      label: "plugin:lazy",
      load: async () => {
        loads += 1;
        return [() => void order.push("lazy-1"), () => void order.push("lazy-2")];
      },
    });
    hooks.on({ name: "post_tool_call", label: "last", handler: () => void order.push("last") });
    expect(loads).toBe(0);
    expect(hooks.has("post_tool_call")).toBe(true);
    await Promise.all([hooks.emit("post_tool_call", {}), hooks.emit("post_tool_call", {})]);
    await hooks.emit("post_tool_call", {});
    expect(loads).toBe(1);
    expect(order.slice(-4)).toEqual(["first", "lazy-1", "lazy-2", "last"]);
  });

  it("a lazy registration that fails to load is reported and dropped", async () => {
    const { hooks, problems } = bus();
    hooks.on({
      name: "on_session_start",
      label: "plugin:bad",
      load: () => Promise.reject(new Error("syntax error in index.mjs")),
    });
    await hooks.emit("on_session_start", {});
    expect(problems[0]).toEqual({
      hook: "on_session_start",
      label: "plugin:bad",
      kind: "load",
      message: "could not load: syntax error in index.mjs",
    });
    expect(hooks.has("on_session_start")).toBe(false);
  });
});
