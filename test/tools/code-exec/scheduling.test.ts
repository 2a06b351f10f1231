/**
 * A script that fires several tool calls at once gets the model's parallel-safety rules: a tool
 * that is not parallel-safe runs its calls one after another.
 */
import { afterEach, describe, expect, it } from "vitest";
import { TERMINAL_SCHEMA } from "../../../src/tools/builtin/terminal.js";
import { type CodeExecHarness, createCodeExecHarness } from "./setup.js";

let h: CodeExecHarness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

describe("execute_code: concurrent calls from a script", () => {
  it("runs five calls of a tool that is not parallel-safe one at a time", async () => {
    h = await createCodeExecHarness();
    // terminal's place taken by a probe that counts how many of its calls overlap.
    let running = 0;
    let peak = 0;
    h.registry.register({
      name: "terminal",
      toolset: "terminal",
      schema: TERMINAL_SCHEMA,
      parallelSafe: false,
      handler: async (args) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((done) => setTimeout(done, 100));
        running -= 1;
        return JSON.stringify({ output: String(args.command), exit_code: 0 });
      },
    });
    const r = await h.exec({
      language: "javascript",
      code: [
        'import { terminal } from "hermes_tools";',
        "const out = await Promise.all([0, 1, 2, 3, 4].map((i) => terminal({ command: 'job ' + i })));",
        "console.log(out.map((o) => o.output).join(','));",
      ].join("\n"),
    });
    expect(r.status).toBe("success");
    expect(r.output).toBe("job 0,job 1,job 2,job 3,job 4\n");
    expect(r.tool_calls_made).toBe(5);
    expect(peak).toBe(1);
    expect(h.inner.map((e) => e.name)).toEqual(Array(5).fill("terminal"));
  });
});
