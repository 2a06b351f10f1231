import { describe, expect, it } from "vitest";
import { formatClarify, parseClarifyAnswer } from "../../src/cli/repl/clarify-prompt.js";
import { DEFAULT_CONFIG } from "../../src/core/config.js";
import { clarifyTool } from "../../src/tools/builtin/clarify.js";
import type { ClarifyFn, ToolContext } from "../../src/tools/context.js";

const ctx = (clarify?: ClarifyFn, timeout = 3600): ToolContext => {
  const config = structuredClone(DEFAULT_CONFIG);
  config.agent.clarify_timeout = timeout;
  return {
    signal: new AbortController().signal,
    config,
    ...(clarify ? { clarify } : {}),
  } as unknown as ToolContext;
};

describe("clarify tool", () => {
  it("passes the question and at most four choices, and returns the answer", async () => {
    let seen: string[] = [];
    const r = JSON.parse(
      await clarifyTool(
        { question: "Which DB?", choices: ["sqlite", "postgres", "mysql", "duckdb", "oracle"] },
        ctx(async (req) => {
          seen = req.choices;
          return "postgres";
        }),
      ),
    );
    expect(seen).toEqual(["sqlite", "postgres", "mysql", "duckdb"]);
    expect(r).toMatchObject({ answered: true, answer: "postgres" });
  });

  it("errors when nobody can answer and reports a timeout", async () => {
    expect(JSON.parse(await clarifyTool({ question: "?" }, ctx())).error).toBeDefined();
    const never: ClarifyFn = (req) =>
      new Promise((resolve) => req.signal.addEventListener("abort", () => resolve(undefined)));
    const r = JSON.parse(await clarifyTool({ question: "Proceed?" }, ctx(never, 0.05)));
    expect(r.answered).toBe(false);
    expect(r.note).toContain("No answer");
  });

  it("numbers pick a choice; the last number means Other; free text is the answer", () => {
    const choices = ["a", "b"];
    expect(parseClarifyAnswer("2", choices)).toBe("b");
    expect(parseClarifyAnswer("3", choices)).toBe("other");
    expect(parseClarifyAnswer("something else", choices)).toBe("something else");
    expect(parseClarifyAnswer("  ", choices)).toBeUndefined();
    expect(formatClarify({ question: "Q?", choices })).toContain("3. Other");
  });
});
