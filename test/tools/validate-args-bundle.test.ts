/**
 * The built binary checks tool-call arguments against the tool's schema as the sources do (ajv
 * reaches the bundle as a CommonJS module whose exports arrive under `default`).
 */
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { openaiConfig, toolMessagesOf, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

describe("tool arguments in the built binary", () => {
  it("are checked against the tool's schema before the tool runs", async () => {
    const box = sandbox(openaiConfig(fake, "agent:\n  api_max_retries: 0\n"));
    fake.enqueue({ toolCalls: [{ name: "todo", arguments: { todos: "not a list" } }] }, { text: "done" });
    const r = await runHermes(["-z", "plan my day"], {
      env: cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key" }),
      cwd: box.work,
    });
    expect(r.code).toBe(0);
    const result = JSON.parse(String(toolMessagesOf(fake.requests[1]!).at(-1)?.content));
    expect(result.error).toBe(`Invalid arguments for todo: 'todos' must be an array, got "not a list".`);
  });
});
