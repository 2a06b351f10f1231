import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { createDenialNotes } from "../../src/cli/denial-notes.js";
import { discoverModel } from "../../src/cli/model-discovery.js";
import { runSlash, type SlashContext } from "../../src/cli/repl/slash.js";
import { similarNames } from "../../src/cli/suggest.js";
import { apiKeySources, type ProviderProblem, resolveProvider } from "../../src/llm/detect.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";

/** A chat context that records what it printed; `setTitle` as given (absent: titles unavailable). */
function chat(setTitle?: SlashContext["setTitle"]): { ctx: SlashContext; printed: string[] } {
  const printed: string[] = [];
  const ctx: SlashContext = {
    print: (text) => printed.push(text),
    newSession: () => {},
    currentModel: () => "m",
    setModel: () => {},
    usageTable: () => "",
    resetUsage: () => {},
    setYolo: () => false,
    exit: () => {},
  };
  if (setTitle) ctx.setTitle = setTitle;
  return { ctx, printed };
}

describe("/title", () => {
  it("a title that was set is reported as set (success returns undefined)", () => {
    const titles: string[] = [];
    const { ctx, printed } = chat((t) => {
      titles.push(t);
      return undefined;
    });
    runSlash("/title Kyoto trip", ctx);
    expect(titles).toEqual(["Kyoto trip"]);
    expect(printed).toEqual(['Session titled "Kyoto trip".']);
  });

  it("a refusal is reported with its reason", () => {
    const { ctx, printed } = chat(() => "this session is not being saved");
    runSlash("/title x", ctx);
    expect(printed).toEqual(["Cannot set the title: this session is not being saved"]);
  });

  it("without a store, titles are not available", () => {
    const { ctx, printed } = chat();
    runSlash("/title x", ctx);
    expect(printed).toEqual(["Cannot set the title: titles are not available here"]);
  });
});

describe("denial notes for runs nobody can approve", () => {
  const denied = (blocked: string) => JSON.stringify({ error: "not run", blocked });
  const run = (events: AgentEvent[]): string[] => {
    const lines: string[] = [];
    const note = createDenialNotes((l) => lines.push(l));
    for (const e of events) note(e);
    return lines;
  };
  const start = (callId: string, command: string): AgentEvent => ({
    type: "tool_start",
    callId,
    name: "terminal",
    args: { command },
    emoji: "",
  });
  const end = (callId: string, result: string): AgentEvent => ({
    type: "tool_end",
    callId,
    name: "terminal",
    result,
    isError: true,
    durationMs: 1,
  });

  it("one line per command denied for want of approval, none for others", () => {
    const lines = run([
      start("a", "git push --force"),
      start("b", "ls"),
      end("b", JSON.stringify({ output: "x", exit_code: 0 })),
      end("a", denied("needs_approval")),
      start("c", "rm -rf ~"),
      end("c", denied("hardline")),
      start("d", "curl x | sh"),
      end("d", denied("approval_model")),
    ]);
    expect(lines).toEqual([
      "hermes: did not run 'git push --force': it needs approval and nobody can answer in this run; to allow such commands: --yolo, approvals.mode: off, or their rules in command_allowlist (config.yaml)",
      "hermes: did not run 'curl x | sh': the approval check refused it; to allow such commands: --yolo, approvals.mode: off, or their rules in command_allowlist (config.yaml)",
    ]);
  });

  it("commands a script ran (execute_code) count, and long commands stay on one line", () => {
    const long = `echo ${"x".repeat(200)}\nrm -rf dist`;
    const lines = run([
      {
        type: "inner_tool",
        parent: "execute_code",
        name: "terminal",
        args: { command: long },
        result: denied("needs_approval"),
        isError: true,
        durationMs: 1,
      },
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("\n");
    expect(lines[0]).toMatch(/^hermes: did not run 'echo x{100,}…': it needs approval/);
  });

  it("a command run through the tool search bridge (tool_call) is one line, not two", () => {
    const lines = run([
      {
        type: "tool_start",
        callId: "t",
        name: "tool_call",
        args: { name: "ops_shell", arguments: { command: "git push --force" } },
        emoji: "",
      },
      {
        type: "inner_tool",
        parent: "tool_call",
        name: "ops_shell",
        args: { command: "git push --force" },
        result: denied("needs_approval"),
        isError: true,
        durationMs: 1,
      },
      {
        type: "tool_end",
        callId: "t",
        name: "tool_call",
        result: denied("needs_approval"),
        isError: true,
        durationMs: 2,
      },
    ]);
    expect(lines).toEqual([
      expect.stringMatching(/^hermes: did not run 'git push --force': it needs approval/),
    ]);
  });
});

describe("did you mean", () => {
  const commands = ["chat", "config", "sessions", "processes", "auth", "fallback", "prompt-size", "help"];
  it.each([
    ["chta", ["chat"]],
    ["sesions", ["sessions"]],
    ["cofnig", ["config"]],
    ["proccesses", ["processes"]],
    ["Config", ["config"]],
    ["fallbak", ["fallback"]],
    ["xyzzy", []],
    ["a", []],
  ])("%s → %j", (word, expected) => {
    expect(similarNames(word, commands)).toEqual(expected);
  });
});

describe("a custom endpoint without a model", () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(() => fake.close());

  const problemFor = (baseUrl: string): ProviderProblem => {
    const r = resolveProvider({ provider: "custom", base_url: baseUrl }, {});
    if (r.ok) throw new Error("expected a missing model");
    return r.problem;
  };

  it("the problem carries the endpoint to ask", () => {
    expect(problemFor(`${fake.openaiBaseUrl}/`)).toMatchObject({
      kind: "missing_model",
      endpoint: { baseUrl: fake.openaiBaseUrl, apiKey: "not-needed" },
    });
  });

  it("one model listed: it is used", async () => {
    fake.setModelList({ data: [{ id: "llama3.1:8b" }] });
    expect(await discoverModel(problemFor(fake.openaiBaseUrl))).toMatchObject({
      kind: "model",
      model: "llama3.1:8b",
    });
  });

  it("several: all listed (sorted), with -m and model.default", async () => {
    fake.setModelList({ data: [{ id: "b" }, { id: "a" }, { id: "c" }] });
    const found = await discoverModel(problemFor(fake.openaiBaseUrl));
    expect(found).toEqual({
      kind: "ask",
      message: `hermes: no model is set (model.default), and ${fake.openaiBaseUrl} serves 3 models; pass -m MODEL, or set it once with 'hermes config set model.default MODEL':\n  a\n  b\n  c`,
    });
  });

  it("a long list is cut", async () => {
    fake.setModelList({
      data: Array.from({ length: 25 }, (_, i) => ({ id: `m${String(i).padStart(2, "0")}` })),
    });
    const found = await discoverModel(problemFor(fake.openaiBaseUrl));
    expect(found?.kind === "ask" && found.message.split("\n")).toHaveLength(22);
    expect(found?.kind === "ask" && found.message).toMatch(/\n {2}\.\.\. and 5 more$/);
  });

  it("no list, or no answer: says so in one line", async () => {
    fake.setModelList({ error: "not found" }, 404);
    const none = await discoverModel(problemFor(fake.openaiBaseUrl));
    expect(none).toEqual({
      kind: "ask",
      message: `hermes: no model is set (model.default), and ${fake.openaiBaseUrl} has no model list: pass -m MODEL, or set it once with 'hermes config set model.default MODEL'.`,
    });
    fake.setModelList({ error: "boom" }, 500);
    const failed = await discoverModel(problemFor(fake.openaiBaseUrl));
    expect(failed?.kind === "ask" && failed.message).toContain("/models did not answer (HTTP 500)");
  });

  it("other provider problems are left to the provider screen", async () => {
    const r = resolveProvider({}, {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(await discoverModel(r.problem)).toBeUndefined();
  });
});

describe("where a refused key comes from", () => {
  it("a named provider: its variable, the .env file and model.api_key", () => {
    expect(apiKeySources("openrouter", "/home/me/.hermes/.env")).toBe(
      "OPENROUTER_API_KEY in the environment or in /home/me/.hermes/.env, or model.api_key in config.yaml",
    );
    expect(apiKeySources("anthropic", "/h/.env")).toContain(
      "ANTHROPIC_API_KEY in the environment or in /h/.env",
    );
  });

  it("a custom endpoint: model.api_key, or OPENAI_API_KEY with OPENAI_BASE_URL", () => {
    expect(apiKeySources("custom", "/h/.env")).toBe(
      "model.api_key in config.yaml, or OPENAI_API_KEY (with OPENAI_BASE_URL) in the environment or in /h/.env",
    );
  });
});
