import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { createRuntime, type Runtime, type RuntimeOptions } from "../../src/runtime/runtime.js";
import type { ApprovalChoice, ApprovalRequest, ApproveFn } from "../../src/tools/approval/types.js";
import { type Sandbox, sandbox } from "../support/cli.js";
import { messagesOf, openaiConfig, useFakeLlm, type WireMessage } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest, ScriptedTurn } from "../support/fake-llm.js";

export interface TestRuntime {
  runtime: Runtime;
  box: Sandbox;
  /** Every event of every agent, per agent label. */
  events: Map<string, AgentEvent[]>;
  listener(label: string): (e: AgentEvent) => void;
}

/** A runtime in a fresh HERMES_HOME and working directory, its model the fake server. */
export function startRuntime(fake: FakeLlm, extraYaml = "", options: RuntimeOptions = {}): TestRuntime {
  const box = sandbox(openaiConfig(fake, `agent:\n  api_max_retries: 0\n${extraYaml}`));
  mkdirSync(join(box.work, "..", "user-home"), { recursive: true });
  const runtime = createRuntime({
    home: box.home,
    cwd: box.work,
    platform: "test",
    env: { OPENAI_API_KEY: "test-key" },
    ...options,
  });
  const events = new Map<string, AgentEvent[]>();
  return {
    runtime,
    box,
    events,
    listener: (label) => {
      const list: AgentEvent[] = [];
      events.set(label, list);
      return (e) => list.push(e);
    },
  };
}

export interface RuntimeHarness {
  /** This test's fake model server. */
  readonly fake: FakeLlm;
  /** Starts this test's runtime (disposed after the test). */
  start(extraYaml?: string, options?: RuntimeOptions): TestRuntime;
}

/** A fake model server per test and a runtime on it, disposed after each test. */
export function useRuntime(): RuntimeHarness {
  let fake: FakeLlm | undefined;
  let current: TestRuntime | undefined;
  useFakeLlm((f) => {
    fake = f;
  });
  afterEach(async () => {
    await current?.runtime.dispose();
    current = undefined;
  });
  return {
    get fake() {
      return fake!;
    },
    start: (extraYaml, options) => {
      current = startRuntime(fake!, extraYaml, options);
      return current;
    },
  };
}

/** An approve callback answering from a script ("deny" once it runs out) and recording what it was asked. */
export function scripted(...answers: ApprovalChoice[]): ApproveFn & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  const fn = async (req: ApprovalRequest): Promise<ApprovalChoice> => {
    asked.push(req);
    return answers.shift() ?? "deny";
  };
  return Object.assign(fn, { asked });
}

export const text = (m: WireMessage | undefined): string =>
  typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? "");

/** The user message a request serves (the latest one). */
export const lastUser = (req: RecordedRequest): string =>
  text(messagesOf(req).findLast((m) => m.role === "user"));

export const isSummaryCall = (req: RecordedRequest): boolean =>
  text(messagesOf(req)[0]).includes("checkpoint notes");

/**
 * A responder that plays a script per user request: the Nth model call serving a user message
 * that contains a key gets the Nth turn of that key's script (then a plain "done").
 */
export function scriptPerRequest(
  scripts: Record<string, ScriptedTurn[]>,
): (req: RecordedRequest) => ScriptedTurn {
  const calls = new Map<string, number>();
  return (req) => {
    if (isSummaryCall(req))
      return { text: "## Active Task\nsee the request\n\n## Completed Actions\n1. work" };
    const user = lastUser(req);
    const key = Object.keys(scripts).find((k) => user.includes(k));
    if (!key) return { text: "done" };
    const n = calls.get(user) ?? 0;
    calls.set(user, n + 1);
    return scripts[key]![n] ?? { text: `done: ${key}` };
  };
}

export const terminal = (command: string): ScriptedTurn => ({
  toolCalls: [{ name: "terminal", arguments: { command } }],
});

/** The JSON result of the last `tool` call the model received in requests for a user text containing `key`. */
export function toolResultOf(fake: FakeLlm, key: string, tool: string): Record<string, unknown> | undefined {
  for (const req of [...fake.requests].reverse()) {
    if (isSummaryCall(req) || !lastUser(req).includes(key)) continue;
    const messages = messagesOf(req);
    const call = messages.flatMap((m) => m.tool_calls ?? []).findLast((c) => c.function.name === tool);
    const result = call && messages.find((m) => m.role === "tool" && m.tool_call_id === call.id);
    if (result) return JSON.parse(text(result)) as Record<string, unknown>;
  }
  return undefined;
}
