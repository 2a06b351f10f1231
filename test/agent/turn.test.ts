/**
 * The turn loop on its own: a host built from plain parts (no Agent), a scripted model, real tool
 * registry and guardrails. Covers the iteration budget, the grace call, the forced summary, empty
 * answers and the attempt numbers of streamed text.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, RunStatus } from "../../src/agent/events.js";
import { ToolLoopGuardrails } from "../../src/agent/guardrails.js";
import { BUDGET_EXHAUSTED_NOTE, FORCED_SUMMARY_REQUEST } from "../../src/agent/prompt/texts.js";
import { runTurn, type TurnHost, type TurnLimits } from "../../src/agent/turn.js";
import { DEFAULT_CONFIG } from "../../src/core/config.js";
import { ProviderRouter } from "../../src/llm/provider-router.js";
import {
  type ChatMessage,
  type ClassifiedError,
  emptyUsage,
  type LlmEvent,
  type ModelTarget,
  type StreamFn,
  type ToolDefinition,
  type UserMessage,
} from "../../src/llm/types.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { type StreamTurn, scriptedStream } from "../support/scripted-stream.js";
import { tempDir } from "../support/temp.js";

const target: ModelTarget = {
  provider: "custom",
  apiMode: "chat_completions",
  model: "turn-model",
  baseUrl: "http://127.0.0.1:1/v1",
  apiKey: "k",
};

const providers: EnvironmentProvider[] = [];
afterEach(async () => {
  for (const p of providers.splice(0)) await p.disposeAll();
});

const transient: ClassifiedError = {
  reason: "server_error",
  message: "HTTP 500",
  retryable: true,
  shouldCompress: false,
  shouldRotateCredential: false,
  shouldFallback: false,
};

interface Run {
  status: RunStatus;
  finalText: string;
  error: ClassifiedError | undefined;
  apiCalls: number;
  history: ChatMessage[];
  events: AgentEvent[];
  finished: RunStatus[];
  requests: ReturnType<typeof scriptedStream>["requests"];
}

/** One turn of "go" over `stream` with the tools echo and execute_code. */
async function turn(
  stream: StreamFn | StreamTurn[],
  limits: Partial<TurnLimits> = {},
  tweak: Partial<TurnHost> = {},
): Promise<Run> {
  const home = tempDir("hermes-turn-");
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  const schema = { description: "t", parameters: { type: "object", properties: {} } };
  registry.register({
    name: "echo",
    toolset: "t",
    schema,
    handler: (a) => JSON.stringify(a),
    parallelSafe: true,
  });
  registry.register({ name: "execute_code", toolset: "t", schema, handler: () => '{"ok":true}' });
  const environments = createLocalEnvironmentProvider({ cwd: home, home });
  providers.push(environments);
  const scripted = Array.isArray(stream) ? scriptedStream(stream) : undefined;
  const streamFn = scripted?.streamFn ?? (stream as StreamFn);
  const history: ChatMessage[] = [];
  const events: AgentEvent[] = [];
  const finished: RunStatus[] = [];
  const controller = new AbortController();
  const ctx: ToolContext = {
    taskId: "t",
    sessionId: "s",
    signal: controller.signal,
    config: DEFAULT_CONFIG,
    home,
    env: environments.get("t"),
    platform: "cli",
  };
  const host: TurnHost = {
    streamFn,
    router: new ProviderRouter({ target }),
    registry,
    toolNames: new Set(registry.names()),
    guardrails: new ToolLoopGuardrails(DEFAULT_CONFIG.tool_loop_guardrails, () => true),
    keeper: undefined,
    compressor: undefined,
    limits: {
      maxTurns: 10,
      maxRetries: 2,
      retryBaseDelayMs: 1,
      retryMaxDelayMs: 2,
      awaitBackground: false,
      ...limits,
    },
    totalUsage: emptyUsage(),
    messages: () => history,
    append: (m) => history.push(m),
    emit: (e) => events.push(e),
    touch: () => {},
    toolActivity: () => {},
    countApiCall: () => {},
    target: () => target,
    useTarget: () => {},
    whyDisabled: () => "it is not in this session's toolsets.",
    takeNotices: () => "",
    takeSteer: () => "",
    todoNote: () => "",
    backgroundPending: () => 0,
    waitForBackground: async () => true,
    finished: (s) => finished.push(s),
    ...tweak,
  };
  const userMessage: UserMessage = { role: "user", content: "go" };
  history.push(userMessage);
  const tools = (await registry.getDefinitions(host.toolNames)) as ToolDefinition[];
  const r = await runTurn(host, {
    userMessage,
    recalled: "",
    tools,
    ctx,
    signal: controller.signal,
    usage: emptyUsage(),
  });
  return {
    status: r.status,
    finalText: r.finalText,
    error: r.error,
    apiCalls: r.apiCalls,
    history,
    events,
    finished,
    requests: scripted?.requests ?? [],
  };
}

const echo: StreamTurn = { toolCalls: [{ name: "echo", arguments: { n: 1 } }] };
const doneEvents = (r: Run) => r.events.filter((e) => e.type === "done");

describe("runTurn: the happy path", () => {
  it("runs tools, answers, and ends with one done event and one finished call", async () => {
    const r = await turn([echo, { text: "answer" }]);
    expect(r.status).toBe("completed");
    expect(r.finalText).toBe("answer");
    expect(r.error).toBeUndefined();
    expect(r.apiCalls).toBe(2);
    expect(r.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(doneEvents(r)).toEqual([
      { type: "done", status: "completed", finalText: "answer", error: undefined },
    ]);
    expect(r.finished).toEqual(["completed"]);
    // Ordinary calls leave the tool choice to the model.
    expect(r.requests.every((q) => q.toolChoice === undefined)).toBe(true);
  });

  it("an answer without any text is reported, not passed off as a success", async () => {
    const r = await turn([{ text: "" }]);
    expect(r.status).toBe("completed");
    expect(r.finalText).toBe("");
    expect(r.error?.message).toBe("The model ended its turn without an answer");
    expect(doneEvents(r)[0]).toMatchObject({
      error: { message: "The model ended its turn without an answer" },
    });
  });
});

describe("runTurn: the iteration budget", () => {
  it("the last budgeted call's results carry the wrap-up note; the grace call's text is the answer", async () => {
    const r = await turn([echo, echo, { text: "Summary: echoed twice." }], { maxTurns: 2 });
    expect(r.status).toBe("budget_exhausted");
    expect(r.finalText).toBe("Summary: echoed twice.");
    expect(r.error).toBeUndefined();
    expect(r.requests).toHaveLength(3);
    const tools = r.history.filter((m) => m.role === "tool");
    expect(tools[0]!.content).not.toContain(BUDGET_EXHAUSTED_NOTE);
    expect(tools[1]!.content).toContain(BUDGET_EXHAUSTED_NOTE);
    expect(r.events.some((e) => e.type === "status" && e.kind === "budget")).toBe(true);
    // The grace call is an ordinary call: the model may still choose.
    expect(r.requests[2]!.toolChoice).toBeUndefined();
  });

  it("execute_code turns are refunded: they do not count against the budget", async () => {
    const code: StreamTurn = { toolCalls: [{ name: "execute_code", arguments: {} }] };
    const r = await turn([code, code, code, echo, { text: "done" }], { maxTurns: 2 });
    expect(r.status).toBe("completed");
    expect(r.apiCalls).toBe(5);
  });

  it("a grace call that asks for tools: they are answered unrun, then a summary is asked with tool calls forbidden", async () => {
    const r = await turn([echo, { ...echo, text: "" }, { text: "Forced summary." }], { maxTurns: 1 });
    expect(r.status).toBe("budget_exhausted");
    expect(r.finalText).toBe("Forced summary.");
    expect(r.history.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "user",
      "assistant",
    ]);
    expect(JSON.parse(r.history[4]!.content as string).error).toMatch(/^Not executed/);
    expect(r.history[5]!.content).toBe(FORCED_SUMMARY_REQUEST);
    const summary = r.requests[2]!;
    expect(summary.toolChoice).toBe("none");
    // Same tools as every other request: the cached prefix holds.
    expect(summary.tools).toBe(r.requests[0]!.tools);
    expect(r.requests.slice(0, 2).every((q) => q.toolChoice === undefined)).toBe(true);
  });

  it("a summary that still calls tools: the calls are dropped and the grace call's text answers", async () => {
    const r = await turn([echo, { ...echo, text: "Partial notes from the grace call." }, echo], {
      maxTurns: 1,
    });
    expect(r.status).toBe("budget_exhausted");
    expect(r.finalText).toBe("Partial notes from the grace call.");
    expect(r.error).toBeUndefined();
    const last = r.history.at(-1)!;
    expect(last).toEqual({ role: "assistant", content: "" });
  });

  it("no text anywhere at the end of the budget: the run says so in its error", async () => {
    const r = await turn([echo, echo, echo], { maxTurns: 1 });
    expect(r.status).toBe("budget_exhausted");
    expect(r.finalText).toBe("");
    expect(r.error?.message).toMatch(
      /iteration limit \(1 model calls\) was reached and the model gave no summary/,
    );
    expect(doneEvents(r)).toHaveLength(1);
    expect(r.finished).toEqual(["budget_exhausted"]);
  });

  it("a summary call that fails keeps the grace call's text and reports the failure", async () => {
    const badKey: ClassifiedError = { ...transient, reason: "auth", message: "bad key", retryable: false };
    const r = await turn([echo, { ...echo, text: "What I had." }, { error: badKey }], { maxTurns: 1 });
    expect(r.status).toBe("budget_exhausted");
    expect(r.finalText).toBe("What I had.");
    expect(r.error?.reason).toBe("auth");
  });
});

describe("runTurn: background delegations and steering", () => {
  it("awaitBackground: an answer with results still pending waits, then hands them to the model", async () => {
    let pending = 1;
    const r = await turn(
      [{ text: "early answer" }, { text: "answer with the child's result" }],
      { awaitBackground: true },
      {
        backgroundPending: () => pending,
        waitForBackground: async () => {
          pending = 0;
          return true;
        },
        takeNotices: () => (pending === 0 ? "[child finished: 42]" : ""),
      },
    );
    expect(r.finalText).toBe("answer with the child's result");
    expect(r.history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(r.history[2]!.content).toBe("[child finished: 42]");
  });

  it("guidance typed meanwhile rides on the batch's last result", async () => {
    let steer = "check the tests";
    const r = await turn(
      [{ toolCalls: [echo.toolCalls![0]!, echo.toolCalls![0]!] }, { text: "ok" }],
      {},
      {
        takeSteer: () => {
          const s = steer;
          steer = "";
          return s;
        },
      },
    );
    const tools = r.history.filter((m) => m.role === "tool");
    expect(tools[0]!.content).not.toContain("check the tests");
    expect(tools[1]!.content).toContain("[Message from the user while you were working: check the tests]");
  });
});

/** A stream whose replies are event lists, one per request. */
function eventStream(replies: LlmEvent[][]): StreamFn {
  return async function* () {
    for (const e of replies.shift() ?? []) yield e;
  };
}

const usage = emptyUsage();
const reply = (text: string): LlmEvent[] => [
  ...text.split(/(?<= )/).map((t): LlmEvent => ({ type: "text_delta", text: t })),
  { type: "done", message: { role: "assistant", content: text }, usage, finishReason: "stop" },
];

describe("runTurn: streamed text of a failed attempt is withdrawn", () => {
  it("text and reasoning of a retried attempt are discarded by number; the retry's text is the answer", async () => {
    const r = await turn(
      eventStream([
        [
          { type: "reasoning_delta", text: "thinking…" },
          { type: "text_delta", text: "The answer is 4" },
          { type: "error", error: transient, partial: { role: "assistant", content: "The answer is 4" } },
        ],
        reply("The answer is 42."),
      ]),
    );
    expect(r.finalText).toBe("The answer is 42.");
    const stream = r.events.flatMap((e) =>
      e.type === "text_delta" || e.type === "reasoning_delta"
        ? [`${e.type}#${e.attempt}:${e.text}`]
        : e.type === "attempt_discarded"
          ? [`discarded#${e.attempt}:${e.reason}`]
          : [],
    );
    expect(stream).toEqual([
      "reasoning_delta#1:thinking…",
      "text_delta#1:The answer is 4",
      "discarded#1:server_error",
      "text_delta#2:The ",
      "text_delta#2:answer ",
      "text_delta#2:is ",
      "text_delta#2:42.",
    ]);
    // The withdrawal comes before the retry notice, so the old text is gone before the wait.
    const kinds = r.events.map((e) => (e.type === "status" ? `status:${e.kind}` : e.type));
    expect(kinds.indexOf("attempt_discarded")).toBeLessThan(kinds.indexOf("status:retry"));
    expect(r.history.filter((m) => m.role === "assistant")).toEqual([
      { role: "assistant", content: "The answer is 42." },
    ]);
  });

  it("attempt numbers run across the turn's model calls; an attempt that showed nothing is not withdrawn", async () => {
    const toolCall: LlmEvent[] = [
      {
        type: "done",
        message: {
          role: "assistant",
          content: "Let me check. ",
          tool_calls: [{ id: "c1", type: "function", function: { name: "echo", arguments: "{}" } }],
        },
        usage,
        finishReason: "tool_calls",
      },
    ];
    const r = await turn(
      eventStream([
        [{ type: "text_delta", text: "Let me check. " }, ...toolCall],
        [{ type: "error", error: transient }],
        reply("Done."),
      ]),
    );
    expect(r.finalText).toBe("Done.");
    const attempts = r.events.flatMap((e) => (e.type === "text_delta" ? [e.attempt] : []));
    expect(attempts).toEqual([1, 3]);
    expect(r.events.some((e) => e.type === "attempt_discarded")).toBe(false);
  });

  it("an attempt that fails for good is withdrawn too: its text is not the answer", async () => {
    const fatal: ClassifiedError = { ...transient, reason: "content_policy_blocked", retryable: false };
    const r = await turn(
      eventStream([
        [
          { type: "text_delta", text: "Half of" },
          { type: "error", error: fatal },
        ],
      ]),
    );
    expect(r.status).toBe("failed");
    expect(r.events.filter((e) => e.type === "attempt_discarded")).toEqual([
      { type: "attempt_discarded", attempt: 1, reason: "content_policy_blocked" },
    ]);
  });
});
