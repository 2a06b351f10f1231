import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import {
  activeSubagents,
  capSummary,
  childToolNames,
  DELEGATE_BLOCKED_TOOLS,
  effectiveRole,
} from "../../src/agent/delegation.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { buildSubagentPrompt } from "../../src/agent/prompt/subagent.js";
import { DEFAULT_CONFIG, type HermesConfig, parseConfigText } from "../../src/core/config.js";
import type { ModelTarget } from "../../src/llm/types.js";
import { registerBuiltinTools } from "../../src/tools/builtin/index.js";
import type { ChildReport, HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { type FakeLlm, type RecordedRequest, type ScriptedTurn, startFakeLlm } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";

let fake: FakeLlm;
const providers: EnvironmentProvider[] = [];
beforeEach(async () => {
  fake = await startFakeLlm();
});
afterEach(async () => {
  for (const p of providers.splice(0)) await p.disposeAll();
  await fake.close();
});

interface Msg {
  role: string;
  content: unknown;
}
const messagesOf = (r: RecordedRequest): Msg[] => (r.body as { messages: Msg[] }).messages;
const goalOf = (r: RecordedRequest): string | undefined => {
  const sys = messagesOf(r).find((m) => m.role === "system")?.content;
  return /## Your task\n(.*)/.exec(typeof sys === "string" ? sys : "")?.[1];
};
const toolResults = (r: RecordedRequest): string[] =>
  messagesOf(r)
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content));

function parentAgent(
  tune: (c: HermesConfig) => void,
  opts: { depth?: number; events?: AgentEvent[] } = {},
): { agent: Agent; registry: HermesToolRegistry; config: HermesConfig } {
  const config = structuredClone(DEFAULT_CONFIG);
  tune(config);
  const home = tempDir("hermes-deleg-");
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  registerBuiltinTools(registry, config);
  const environments = createLocalEnvironmentProvider({
    cwd: tempDir("hermes-deleg-work-"),
  });
  providers.push(environments);
  const target: ModelTarget = {
    provider: "custom",
    apiMode: "chat_completions",
    model: "test-model",
    baseUrl: fake.openaiBaseUrl,
    apiKey: "k",
  };
  const agent = new Agent({
    target,
    registry,
    toolNames: new Set(["delegate_task", "terminal", "read_file", "memory", "clarify"]),
    config,
    home,
    environments,
    maxRetries: 0,
    delegation: { depth: opts.depth ?? 0 },
    onEvent: (e) => opts.events?.push(e),
  });
  return { agent, registry, config };
}

const reportsOf = (r: RecordedRequest): ChildReport[] =>
  (JSON.parse(toolResults(r)[0]!) as { results: ChildReport[] }).results;

describe("delegation rules", () => {
  it("caps a summary at max_summary_chars with a marker", () => {
    expect(capSummary("short", 100)).toBe("short");
    const cut = capSummary("x".repeat(5000), 300);
    expect(cut.length).toBe(300);
    expect(cut).toMatch(/summary cut: \d+ more characters/);
  });

  it("removes blocked tools for leaves; an orchestrator keeps delegate_task; toolsets narrow the set", () => {
    const parent = new Set([
      "delegate_task",
      "clarify",
      "memory",
      "execute_code",
      "terminal",
      "read_file",
      "web_search",
    ]);
    const leaf = childToolNames(parent, "leaf", undefined);
    for (const b of DELEGATE_BLOCKED_TOOLS) expect(leaf.has(b)).toBe(false);
    expect([...leaf].sort()).toEqual(["read_file", "terminal", "web_search"]);
    expect(childToolNames(parent, "orchestrator", undefined).has("delegate_task")).toBe(true);
    expect([...childToolNames(parent, "leaf", ["terminal"])]).toEqual(["terminal"]);
    // A toolset the parent lacks grants nothing.
    expect([...childToolNames(new Set(["terminal"]), "leaf", ["file"])]).toEqual([]);
  });

  it("grants the orchestrator role only within max_spawn_depth and when enabled", () => {
    expect(effectiveRole("orchestrator", 1, 1, true)).toBe("leaf");
    expect(effectiveRole("orchestrator", 1, 2, true)).toBe("orchestrator");
    expect(effectiveRole("orchestrator", 2, 2, true)).toBe("leaf");
    expect(effectiveRole("orchestrator", 1, 3, false)).toBe("leaf");
    expect(effectiveRole("leaf", 1, 3, true)).toBe("leaf");
  });

  it("validates the delegation config keys", () => {
    expect(
      parseConfigText("delegation:\n  max_spawn_depth: 2\n", "c.yaml").config.delegation.max_spawn_depth,
    ).toBe(2);
    expect(() => parseConfigText("delegation:\n  max_spawn_depth: 4\n", "c.yaml")).toThrow(
      /max_spawn_depth' must be 1, 2 or 3/,
    );
    expect(() => parseConfigText("delegation:\n  max_concurrent_children: 0\n", "c.yaml")).toThrow(/>= 1/);
    expect(() => parseConfigText("delegation:\n  provider: nope\n", "c.yaml")).toThrow(/delegation.provider/);
  });

  it("adds the orchestrator section only for orchestrators", () => {
    const base = { goal: "g", workspace: "/w", depth: 1, maxSpawnDepth: 2 };
    expect(buildSubagentPrompt({ ...base, role: "leaf" })).not.toContain("delegate_task");
    expect(buildSubagentPrompt({ ...base, role: "orchestrator" })).toContain("depth 1");
  });
});

describe("delegate_task with real agents", () => {
  it("refuses to delegate at the depth limit with a clear result", async () => {
    const { agent } = parentAgent(() => {}, { depth: 1 });
    fake.setResponder((r) =>
      toolResults(r).length === 0
        ? { toolCalls: [{ name: "delegate_task", arguments: { goal: "nested" } }] }
        : { text: "ok" },
    );
    const res = await agent.runConversation("go");
    expect(res.status).toBe("completed");
    expect(toolResults(fake.requests.at(-1)!)[0]).toMatch(
      /Delegation refused: this agent is at depth 1.*max_spawn_depth is 1/,
    );
    expect(fake.requests.some((r) => goalOf(r) !== undefined)).toBe(false);
  });

  it("runs at most max_concurrent_children at once", async () => {
    const seen: number[] = [];
    const respond = (r: RecordedRequest): ScriptedTurn => {
      if (goalOf(r)) {
        seen.push(activeSubagents().length);
        return { text: `done ${goalOf(r)}`, delayMs: 100 };
      }
      return toolResults(r).length === 0
        ? {
            toolCalls: [
              { name: "delegate_task", arguments: { tasks: [{ goal: "a" }, { goal: "b" }, { goal: "c" }] } },
            ],
          }
        : { text: "ok" };
    };
    fake.setResponder(respond);
    const one = parentAgent((c) => {
      c.delegation.max_concurrent_children = 1;
    });
    await one.agent.runConversation("go");
    expect(seen).toEqual([1, 1, 1]);
    expect(reportsOf(fake.requests.at(-1)!).map((x) => x.summary)).toEqual(["done a", "done b", "done c"]);
    seen.length = 0;
    const three = parentAgent(() => {});
    await three.agent.runConversation("go");
    expect(seen).toEqual([3, 3, 3]);
  });

  it("caps a child's summary and lists the files it wrote", async () => {
    const { agent } = parentAgent((c) => {
      c.delegation.max_summary_chars = 200;
    });
    fake.setResponder((r) => {
      if (goalOf(r)) {
        return toolResults(r).length === 0
          ? { toolCalls: [{ name: "terminal", arguments: { command: "echo hi" } }] }
          : { text: `FINDINGS ${"y".repeat(3000)}` };
      }
      return toolResults(r).length === 0
        ? { toolCalls: [{ name: "delegate_task", arguments: { goal: "long report" } }] }
        : { text: "ok" };
    });
    await agent.runConversation("go");
    const [rep] = reportsOf(fake.requests.at(-1)!);
    expect(rep!.summary.length).toBe(200);
    expect(rep!.summary.startsWith("FINDINGS")).toBe(true);
    expect(rep!.toolsUsed).toEqual(["terminal"]);
  });

  it("a subagent's background delegation runs in the foreground so its result is not lost", async () => {
    const { agent } = parentAgent((c) => {
      c.delegation.max_spawn_depth = 2;
    });
    fake.setResponder((r) => {
      const goal = goalOf(r);
      if (goal === "grand") return { text: "grand result 42" };
      if (goal === "orch") {
        return toolResults(r).length === 0
          ? { toolCalls: [{ name: "delegate_task", arguments: { goal: "grand", background: true } }] }
          : { text: "orchestrated" };
      }
      return toolResults(r).length === 0
        ? { toolCalls: [{ name: "delegate_task", arguments: { goal: "orch", role: "orchestrator" } }] }
        : { text: "ok" };
    });
    const res = await agent.runConversation("go");
    expect(res.status).toBe("completed");
    const orchestratorSaw = fake.requests.filter((r) => goalOf(r) === "orch").at(-1)!;
    const result = JSON.parse(toolResults(orchestratorSaw)[0]!) as { results: ChildReport[]; note: string };
    expect(result.results[0]!.summary).toBe("grand result 42");
    expect(result.note).toMatch(/foreground/);
    expect(reportsOf(fake.requests.at(-1)!)[0]!.summary).toBe("orchestrated");
  });

  it("an interrupt of the parent cancels its children", async () => {
    const events: AgentEvent[] = [];
    const { agent } = parentAgent(() => {}, { events });
    fake.setResponder((r) => {
      if (goalOf(r)) {
        setTimeout(() => agent.interrupt(), 50);
        return { fault: { kind: "hang" } };
      }
      return toolResults(r).length === 0
        ? { toolCalls: [{ name: "delegate_task", arguments: { goal: "wait forever" } }] }
        : { text: "unexpected" };
    });
    const res = await agent.runConversation("go");
    expect(res.status).toBe("interrupted");
    const end = events.find((e) => e.type === "subagent" && e.phase === "end");
    expect(end).toMatchObject({ status: "interrupted", goal: "wait forever" });
    expect(activeSubagents()).toHaveLength(0);
  });

  it("the tool description states the configured limits", async () => {
    const { registry } = parentAgent((c) => {
      c.delegation.max_concurrent_children = 5;
      c.delegation.max_spawn_depth = 2;
    });
    const [def] = await registry.getDefinitions(["delegate_task"]);
    expect(def!.function.description).toContain("(5 at once)");
    expect(def!.function.description).toContain("to depth 2");
  });
});
