import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { DEFAULT_CONFIG } from "../../src/core/config-defaults.js";
import type { ChatMessage, ModelTarget } from "../../src/llm/types.js";
import { registerBuiltinTools } from "../../src/tools/builtin/index.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { createEnvironmentProvider } from "../../src/tools/environments/factory.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { type StreamTurn, scriptedStream } from "../support/scripted-stream.js";

/** Background-process notices reach the model through the agent loop. */

const target: ModelTarget = {
  provider: "custom",
  apiMode: "chat_completions",
  model: "test-model",
  baseUrl: "http://127.0.0.1:1/v1",
  apiKey: "k",
};

let dir: string;
let environments: EnvironmentProvider;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "hermes-notices-")));
  environments = createEnvironmentProvider(structuredClone(DEFAULT_CONFIG), {
    home: dir,
    cwd: dir,
    userHome: dir,
  });
});
afterEach(async () => {
  await environments.disposeAll();
  await rm(dir, { recursive: true, force: true });
});

function agentWith(turns: StreamTurn[]): { agent: Agent; stream: ReturnType<typeof scriptedStream> } {
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  registerBuiltinTools(registry);
  const stream = scriptedStream(turns);
  const agent = new Agent({
    target,
    registry,
    toolNames: new Set(["terminal", "process"]),
    config: structuredClone(DEFAULT_CONFIG),
    home: dir,
    environments,
    streamFn: stream.streamFn,
  });
  return { agent, stream };
}

const toolMessages = (messages: readonly ChatMessage[]): string[] =>
  messages.filter((m) => m.role === "tool").map((m) => String(m.content));

describe("notices from background processes", () => {
  it("ride on the next tool result while the agent works", async () => {
    const { agent } = agentWith([
      {
        toolCalls: [
          {
            name: "terminal",
            arguments: { command: "sleep 0.2; echo compiled", background: true, notify_on_complete: true },
          },
        ],
      },
      { toolCalls: [{ name: "terminal", arguments: { command: "sleep 1.5; echo waited" } }] },
      { text: "done" },
    ]);
    const result = await agent.runConversation("build it in the background");
    expect(result.status).toBe("completed");
    const [started, waited] = toolMessages(agent.messages);
    expect(started).toMatch(/"session_id":"proc_/);
    expect(waited).toMatch(/^\{"output":"waited\\n"/);
    expect(waited).toMatch(
      /\n\n\[Background process proc_\w+ \(sleep 0\.2; echo compiled\) exited with code 0\.\nLast output:\ncompiled\]$/,
    );
  });

  it("come before the next user message when the process ends while the agent is idle", async () => {
    const { agent, stream } = agentWith([
      {
        toolCalls: [
          {
            name: "terminal",
            arguments: { command: "sleep 0.3; echo ready", background: true, watch_patterns: ["^ready$"] },
          },
        ],
      },
      { text: "started" },
      { text: "noted" },
    ]);
    await agent.runConversation("start the server");
    await vi.waitFor(
      () => {
        const pending = (agent as unknown as { noticeQueue: string[] }).noticeQueue;
        expect(pending).toHaveLength(1);
      },
      { timeout: 10_000, interval: 50 },
    );
    await agent.runConversation("what happened?");
    const lastUser = [...agent.messages].reverse().find((m) => m.role === "user");
    expect(String(lastUser?.content)).toMatch(
      /^\[Background process proc_\w+: output matched watch_patterns:\n {2}ready\]\n\nwhat happened\?$/,
    );
    expect(stream.requests).toHaveLength(3);
  });
});
