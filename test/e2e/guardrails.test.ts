import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { messagesOf, openaiConfig, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest, ScriptedTurn } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const config = (extra = ""): string => openaiConfig(fake, extra);
const HARD_STOPS = "tool_loop_guardrails:\n  hard_stop_enabled: true\n";

const repeat = (n: number, name: string, args: Record<string, unknown>): ScriptedTurn[] =>
  Array.from({ length: n }, () => ({ toolCalls: [{ name, arguments: args }] }));

/** The newest tool result in a chat-completions request. */
function lastToolResult(req: RecordedRequest): string {
  const last = messagesOf(req).at(-1)!;
  expect(last.role).toBe("tool");
  return String(last.content);
}

async function run(configYaml: string, turns: ScriptedTurn[], setup?: (work: string) => void) {
  const box = sandbox(configYaml);
  setup?.(box.work);
  fake.enqueue(...turns);
  const r = await runHermes(["-z", "read the notes"], {
    env: cleanEnv({ HERMES_HOME: box.home }),
    cwd: box.work,
  });
  // Request i+1 carries the result of call i.
  const results = fake.requests.slice(1).map(lastToolResult);
  return { r, results };
}

describe("tool-loop guardrails through the CLI", () => {
  it("warns a model repeating a failing call but lets it finish by default", async () => {
    const { r, results } = await run(config(), [
      ...repeat(6, "read_file", { path: "missing.txt" }),
      { text: "The file does not exist." },
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The file does not exist.\n");
    expect(results).toHaveLength(6);
    expect(results[0]).not.toContain("Loop guard");
    for (const result of results.slice(1)) {
      expect(result).toMatch(/^\{"error"/);
      expect(result).toContain("[Loop guard: this exact read_file call has now failed");
    }
    // Every call ran: nothing says "Not run".
    expect(results.join("\n")).not.toContain("Not run");
  });

  it("with hard stops on, blocks the repeated call after five failures and halts the turn", async () => {
    const { r, results } = await run(config(HARD_STOPS), [
      ...repeat(12, "read_file", { path: "missing.txt" }),
      { text: "never reached" },
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("tool-loop guardrail");
    expect(r.stdout).not.toContain("never reached");
    // Five failures run, then three refusals, then the halt ends the turn (no request after it).
    expect(results).toHaveLength(8);
    expect(results.slice(0, 5).every((t) => t.includes("not found") || t.includes("No such"))).toBe(true);
    for (const refused of results.slice(5)) expect(refused).toContain("Not run");
    expect(fake.requests).toHaveLength(9);
    expect(fake.pending()).toBe(4);
  });

  it("warns on, then blocks, a read-only call that keeps returning the same result", async () => {
    const { r, results } = await run(
      config(HARD_STOPS),
      [...repeat(7, "read_file", { path: "notes.txt" }), { text: "I have read the notes." }],
      (work) => writeFileSync(join(work, "notes.txt"), "remember the milk\n"),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("I have read the notes.\n");
    expect(results[0]).toContain("remember the milk");
    expect(results[0]).not.toContain("Loop guard");
    expect(results[1]).toContain("remember the milk");
    expect(results[1]).toContain("returned the same result 2 times");
    expect(results[5]).toMatch(/^\{"error": ?"Not run: this read-only read_file call/);
    expect(results[6]).toContain("Not run");
  });
});
