import { describe, expect, it } from "vitest";
import {
  callSignature,
  canonicalJson,
  type GuardrailSettings,
  ToolLoopGuardrails,
} from "../../src/agent/guardrails.js";
import { DEFAULT_CONFIG } from "../../src/core/config-defaults.js";

const READ_ONLY = new Set(["read_file", "search_files"]);
const settings = (over: Partial<GuardrailSettings> = {}): GuardrailSettings => ({
  ...DEFAULT_CONFIG.tool_loop_guardrails,
  ...over,
});
const guard = (over: Partial<GuardrailSettings> = {}) =>
  new ToolLoopGuardrails(settings(over), (n) => READ_ONLY.has(n));
const FAIL = '{"error": "File not found: a.txt"}';

/** Runs the call through the guard the way the tool runner does; returns the decisions' actions. */
function attempt(g: ToolLoopGuardrails, tool: string, args: unknown, result: string, failed: boolean) {
  const before = g.beforeCall(tool, args);
  if (before.action === "block" || before.action === "halt") return before;
  return g.afterCall(tool, args, result, failed);
}

describe("canonical signatures", () => {
  it("ignores key order at every depth and whitespace", () => {
    expect(canonicalJson({ b: 2, a: { d: [1, { z: 1, y: 2 }], c: "x" } })).toBe(
      '{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":2}',
    );
    expect(callSignature("t", { a: 1, b: 2 })).toBe(callSignature("t", { b: 2, a: 1 }));
    expect(callSignature("t", { a: 1 })).not.toBe(callSignature("u", { a: 1 }));
    expect(callSignature("t", { a: 1 })).not.toBe(callSignature("t", { a: "1" }));
  });
});

describe("tool-loop guardrails", () => {
  it("warns from the second identical failure and, by default, never stops", () => {
    const g = guard();
    const actions = Array.from({ length: 12 }, () => attempt(g, "read_file", { path: "a.txt" }, FAIL, true));
    expect(actions[0]!.action).toBe("allow");
    expect(actions[1]).toMatchObject({ action: "warn", code: "exact_failure_warning", count: 2 });
    expect(actions[1]!.message).toContain("failed 2 times");
    expect(actions.slice(1).every((d) => d.action === "warn")).toBe(true);
  });

  it("blocks the identical call after five failures when hard stops are on", () => {
    const g = guard({ hard_stop_enabled: true });
    const actions = Array.from(
      { length: 6 },
      () => attempt(g, "read_file", { path: "a.txt" }, FAIL, true).action,
    );
    expect(actions).toEqual(["allow", "warn", "warn", "warn", "warn", "block"]);
    // Other arguments still run.
    expect(g.beforeCall("read_file", { path: "b.txt" }).action).toBe("allow");
  });

  it("warns on a same-tool failure streak at three and halts at eight with hard stops", () => {
    const g = guard({ hard_stop_enabled: true });
    const codes = Array.from({ length: 9 }, (_, i) => {
      const d = attempt(g, "terminal", { command: `false ${i}` }, '{"output":"","exit_code":1}', true);
      return `${d.action}:${d.code}`;
    });
    expect(codes.slice(0, 3)).toEqual(["allow:", "allow:", "warn:same_tool_failure_warning"]);
    expect(codes[8]).toBe("halt:same_tool_failure_halt");
  });

  it("a success of the tool resets its failure counts", () => {
    const g = guard({ hard_stop_enabled: true });
    for (let i = 0; i < 4; i++) attempt(g, "read_file", { path: "a.txt" }, FAIL, true);
    attempt(g, "read_file", { path: "a.txt" }, "1|created meanwhile", false);
    expect(attempt(g, "read_file", { path: "a.txt" }, FAIL, true).action).toBe("allow");
  });

  it("warns when a read-only call keeps returning the same result and blocks it with hard stops", () => {
    const g = guard({ hard_stop_enabled: true });
    const same = Array.from({ length: 6 }, () =>
      attempt(g, "search_files", { pattern: "x" }, '{"matches":[]}', false),
    );
    expect(same.map((d) => d.action)).toEqual(["allow", "warn", "warn", "warn", "warn", "block"]);
    expect(same[1]!.code).toBe("idempotent_no_progress_warning");
    expect(same[5]!.code).toBe("idempotent_no_progress_block");
  });

  it("does not count a changed result, a mutating tool, or a write in between as no progress", () => {
    const g = guard();
    expect(attempt(g, "read_file", { path: "a" }, "v1", false).action).toBe("allow");
    expect(attempt(g, "read_file", { path: "a" }, "v2", false).action).toBe("allow");
    expect(attempt(g, "terminal", { command: "ls" }, "same", false).action).toBe("allow");
    expect(attempt(g, "terminal", { command: "ls" }, "same", false).action).toBe("allow");
    attempt(g, "read_file", { path: "a" }, "v2", false);
    expect(g.afterCall("read_file", { path: "a" }, "v2", false).action).toBe("warn");
    g.afterCall("write_file", { path: "a", content: "v2" }, '{"ok":true}', false);
    expect(g.afterCall("read_file", { path: "a" }, "v2", false).action).toBe("allow");
  });

  it("refused calls count toward the same-tool halt, so retrying a blocked call still ends", () => {
    const g = guard({ hard_stop_enabled: true });
    const actions: string[] = [];
    for (let i = 0; i < 12; i++) actions.push(attempt(g, "read_file", { path: "a.txt" }, FAIL, true).action);
    expect(actions).toContain("block");
    expect(actions.at(-1)).toBe("halt");
  });

  it("stays silent with warnings disabled and thresholds follow the config", () => {
    const quiet = guard({ warnings_enabled: false });
    for (let i = 0; i < 6; i++)
      expect(attempt(quiet, "read_file", { p: 1 }, FAIL, true).action).toBe("allow");
    const strict = guard({
      hard_stop_enabled: true,
      warn_after: { exact_failure: 1, same_tool_failure: 1, idempotent_no_progress: 1 },
      hard_stop_after: { exact_failure: 2, same_tool_failure: 9, idempotent_no_progress: 9 },
    });
    expect(attempt(strict, "read_file", { p: 1 }, FAIL, true).action).toBe("warn");
    attempt(strict, "read_file", { p: 1 }, FAIL, true);
    expect(attempt(strict, "read_file", { p: 1 }, FAIL, true).action).toBe("block");
  });

  it("reset clears everything for the next request", () => {
    const g = guard({ hard_stop_enabled: true });
    for (let i = 0; i < 5; i++) attempt(g, "read_file", { path: "a.txt" }, FAIL, true);
    expect(g.beforeCall("read_file", { path: "a.txt" }).action).toBe("block");
    g.reset();
    expect(g.beforeCall("read_file", { path: "a.txt" }).action).toBe("allow");
  });
});
