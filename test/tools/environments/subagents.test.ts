import { mkdir, mkdtemp, readdir, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { DEFAULT_CONFIG } from "../../../src/core/config.js";
import { registerBuiltinTools } from "../../../src/tools/builtin/index.js";
import type { ChildReport, HermesToolRegistry, ToolContext } from "../../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../../src/tools/environments/local.js";
import type { EnvironmentProvider } from "../../../src/tools/environments/types.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { type FakeLlm, type RecordedRequest, startFakeLlm } from "../../support/fake-llm.js";

/**
 * Three subagents at once, each with a `cd` and an `export` of its own, through the real agent
 * loop and delegate_task against the fake LLM: each starts where the parent stood, none sees the
 * others' state, the parent keeps its own, and the children's state is gone when they finish.
 * Temp dirs go under a private TMPDIR (this file runs in its own process) so they can be counted.
 */

const savedTmp = process.env.TMPDIR;
let tempRoot: string;
let root: string;
let fake: FakeLlm;
let environments: EnvironmentProvider;

beforeAll(async () => {
  tempRoot = await realpath(await mkdtemp(join(tmpdir(), "hermes-subagents-tmp-")));
  process.env.TMPDIR = tempRoot;
});
afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(tempRoot, { recursive: true, force: true });
});
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "hermes-subagents-")));
  fake = await startFakeLlm();
  environments = createLocalEnvironmentProvider({ cwd: root, home: root });
});
afterEach(async () => {
  await environments.disposeAll();
  await fake.close();
  await rm(root, { recursive: true, force: true });
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
const outputs = (r: RecordedRequest): string[] =>
  messagesOf(r)
    .filter((m) => m.role === "tool")
    .map((m) => {
      const parsed = JSON.parse(String(m.content)) as { output?: string };
      return parsed.output ?? String(m.content);
    });
const terminal = (command: string) => ({ toolCalls: [{ name: "terminal", arguments: { command } }] });

describe("subagents and the parent's environment", () => {
  it("fork from the parent's cwd and variables without corrupting each other's or the parent's", async () => {
    const work = join(root, "work");
    const goals = ["alpha", "beta", "gamma"];
    await mkdir(work);
    await Promise.all(goals.map((g) => mkdir(join(root, g))));
    fake.setResponder((r) => {
      const goal = goalOf(r);
      const seen = outputs(r);
      if (goal) {
        if (seen.length === 0)
          return terminal(`echo "$FROM_PARENT $PWD"; cd ${join(root, goal)} && export ONLY=${goal}`);
        if (seen.length === 1) return terminal('echo "$ONLY $PWD"');
        return { text: seen.map((s) => s.trim()).join(" | ") };
      }
      if (seen.length === 0) return terminal(`cd ${work} && export FROM_PARENT=yes`);
      if (seen.length === 1)
        return {
          toolCalls: [{ name: "delegate_task", arguments: { tasks: goals.map((goal) => ({ goal })) } }],
        };
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
      if (seen.length === 2) return terminal('echo "[${ONLY:-}] $PWD"');
      return { text: "done" };
    });
    const config = structuredClone(DEFAULT_CONFIG);
    const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
    registerBuiltinTools(registry, config);
    const agent = new Agent({
      target: {
        provider: "custom",
        apiMode: "chat_completions",
        model: "test-model",
        baseUrl: fake.openaiBaseUrl,
        apiKey: "k",
      },
      registry,
      toolNames: new Set(["delegate_task", "terminal"]),
      config,
      home: join(root, "home"),
      environments,
      maxRetries: 0,
      taskId: "parent",
      onEvent: () => {},
    });
    const result = await agent.runConversation("go");
    expect(result.status).toBe("completed");
    const parentTurns = fake.requests.filter((r) => !goalOf(r));
    const last = parentTurns.at(-1)!;
    const delegated = JSON.parse(String(messagesOf(last).filter((m) => m.role === "tool")[1]!.content)) as {
      results: ChildReport[];
    };
    expect(delegated.results.map((c) => c.summary)).toEqual(
      goals.map((g) => `yes ${work} | ${g} ${join(root, g)}`),
    );
    expect(outputs(last)[2]).toBe(`[] ${work}\n`);
    expect(environments.get("parent").getCwd()).toBe(work);
    // Only the parent's state dir is left: each child's went when it finished.
    expect((await readdir(tempRoot)).filter((n) => n.startsWith("hermes-shell-"))).toHaveLength(1);
  });
});
