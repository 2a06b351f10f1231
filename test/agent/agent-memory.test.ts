import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { DEFAULT_CONFIG, type HermesConfig } from "../../src/core/config.js";
import type { ModelTarget } from "../../src/llm/types.js";
import { registerClarifyTool } from "../../src/tools/builtin/clarify.js";
import { registerMemoryTool } from "../../src/tools/builtin/memory.js";
import { registerTodoTool } from "../../src/tools/builtin/todo.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { tempDir } from "../support/temp.js";

const target: ModelTarget = {
  provider: "custom",
  apiMode: "chat_completions",
  model: "test-model",
  baseUrl: "http://127.0.0.1:1/v1",
  apiKey: "k",
};
const providers: EnvironmentProvider[] = [];
afterEach(async () => {
  for (const p of providers.splice(0)) await p.disposeAll();
});

function agentWith(opts: { config?: (c: HermesConfig) => void; clarify?: boolean } = {}) {
  const home = tempDir("hermes-agent-mem-");
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  registerMemoryTool(registry);
  registerTodoTool(registry);
  registerClarifyTool(registry);
  const config = structuredClone(DEFAULT_CONFIG);
  opts.config?.(config);
  const environments = createLocalEnvironmentProvider({ cwd: home, home });
  providers.push(environments);
  const agent = new Agent({
    target,
    registry,
    toolNames: new Set(["memory", "todo", "clarify"]),
    config,
    home,
    environments,
    ...(opts.clarify ? { clarify: async () => "yes" } : {}),
  });
  return { agent, home };
}

const names = async (agent: Agent): Promise<string[]> =>
  (await agent.prepareSession()).tools.map((t) => t.function.name).sort();

describe("agent memory, todo and clarify wiring", () => {
  it("hides clarify without a way to ask, and memory when both stores are off", async () => {
    expect(await names(agentWith().agent)).toEqual(["memory", "todo"]);
    expect(await names(agentWith({ clarify: true }).agent)).toEqual(["clarify", "memory", "todo"]);
    const off = agentWith({
      config: (c) => {
        c.memory.memory_enabled = false;
        c.memory.user_profile_enabled = false;
      },
    }).agent;
    expect(await names(off)).toEqual(["todo"]);
    expect((await off.prepareSession()).systemPrompt).not.toContain("# Memory");
  });

  it("snapshots memory at session start and exposes the layers", async () => {
    const { agent, home } = agentWith();
    mkdirSync(join(home, "memories"), { recursive: true });
    writeFileSync(join(home, "memories", "MEMORY.md"), "Deploys go through CI\n");
    const first = await agent.prepareSession();
    expect(first.systemPrompt).toContain("Deploys go through CI");
    expect(first.layers?.at(-1)?.name).toBe("memory");
    await agent.memory!.apply("memory", [{ action: "add", content: "New fact" }]);
    const again = await agent.prepareSession();
    expect(again.systemPrompt).toBe(first.systemPrompt);
    expect(again.systemPrompt).not.toContain("New fact");
  });
});
