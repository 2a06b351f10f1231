/**
 * How a run ends, through the real binary and SDKs against the fake LLM server: the forced summary
 * at the end of the iteration budget forbids tool calls on every protocol, a run without answer
 * text never exits 0, and a retried attempt's streamed text never becomes part of the answer.
 */
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, Protocol, RecordedRequest, ScriptedTurn } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const AGENT = "agent:\n  max_turns: 1\n  retry_base_delay: 0.05\n";

const MODELS: Record<Protocol, () => string> = {
  openai: () => `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n`,
  anthropic: () =>
    `model:\n  provider: anthropic\n  base_url: ${fake.anthropicBaseUrl}\n  default: claude-test\n`,
  responses: () =>
    `model:\n  provider: openai\n  base_url: ${fake.openaiBaseUrl}\n  default: gpt-5\n  api_mode: codex_responses\n`,
};

/** tool_choice "none" in each protocol's own form. */
const NONE: Record<Protocol, unknown> = {
  openai: "none",
  anthropic: { type: "none" },
  responses: "none",
};

const hermes = (protocol: Protocol, args: string[], input?: string) => {
  const box = sandbox(MODELS[protocol]() + AGENT);
  const env = cleanEnv({ HERMES_HOME: box.home, ANTHROPIC_API_KEY: "test-key", OPENAI_API_KEY: "test-key" });
  return runHermes(args, { env, cwd: box.work, ...(input === undefined ? {} : { input }) });
};

const step = (n: number): ScriptedTurn => ({
  toolCalls: [{ name: "search_files", arguments: { pattern: `step-${n}`, target: "files" } }],
});

const toolChoiceOf = (r: RecordedRequest): unknown => (r.body as { tool_choice?: unknown }).tool_choice;
const toolsOf = (r: RecordedRequest): string => JSON.stringify((r.body as { tools?: unknown }).tools);

describe("the end of the iteration budget", () => {
  it.each(["openai", "anthropic", "responses"] as const)(
    "%s: the forced summary keeps the tools but sends tool_choice none, and its text is the answer",
    async (protocol) => {
      fake.enqueue(step(1), step(2), { text: "Summary: ran step 1; step 2 was not run." });
      const r = await hermes(protocol, ["-z", "do the steps"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("Summary: ran step 1; step 2 was not run.\n");
      expect(fake.requests.map((q) => q.protocol)).toEqual([protocol, protocol, protocol]);
      const [first, grace, summary] = fake.requests as [RecordedRequest, RecordedRequest, RecordedRequest];
      expect(toolChoiceOf(first)).toBeUndefined();
      expect(toolChoiceOf(grace)).toBeUndefined();
      expect(toolChoiceOf(summary)).toEqual(NONE[protocol]);
      // The same tool list as every request before it: the prompt cache still matches.
      expect(toolsOf(summary)).toBe(toolsOf(first));
      expect(toolsOf(first)).toContain("search_files");
    },
  );

  it("a model that still answers the summary with a tool call and no text: stderr says so, exit 1", async () => {
    fake.enqueue(step(1), step(2), step(3));
    const r = await hermes("openai", ["-z", "do the steps"]);
    expect(r.stdout).toBe("");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^hermes: The iteration limit \(1 model calls\) was reached and the model gave no summary of its work\n$/,
    );
    expect(toolChoiceOf(fake.requests[2]!)).toBe("none");
  });

  it("the grace call's own text answers when the summary is empty", async () => {
    fake.enqueue(step(1), { ...step(2), text: "Ran step 1, was about to run step 2." }, { text: "" });
    const r = await hermes("anthropic", ["-z", "do the steps"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Ran step 1, was about to run step 2.\n");
  });
});

describe("a run without answer text", () => {
  it("-z: an empty reply is a failure with a message, never an empty success", async () => {
    fake.enqueue({ text: "" });
    const r = await hermes("openai", ["-z", "say something"]);
    expect(r.stdout).toBe("");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("hermes: The model ended its turn without an answer\n");
  });

  it("a piped chat reports it and exits 1", async () => {
    fake.enqueue({ text: "" });
    const r = await hermes("openai", [], "say something\n");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("[error] The model ended its turn without an answer");
  });
});

describe("text of a failed attempt", () => {
  const script = (): ScriptedTurn[] => [
    { text: "The answer is 4", fault: { kind: "reset_mid_stream" } },
    { text: "The answer is 42." },
  ];

  it("-z prints only the final attempt's text", async () => {
    fake.enqueue(...script());
    const r = await hermes("openai", ["-z", "what is the answer?"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The answer is 42.\n");
    expect(fake.requests).toHaveLength(2);
  });

  it("the chat closes the streamed partial answer with a marker before the retry's text", async () => {
    fake.enqueue(...script());
    const r = await hermes("openai", [], "what is the answer?\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^The answ[^\n]*\n {2}\[previous partial answer discarded\]\nThe answer is 42\.\n$/,
    );
    expect(r.stderr).toContain("[retry]");
  });
});
