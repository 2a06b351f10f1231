/**
 * A script's tool calls (execute_code) take the model's path: schema check, loop guardrails, and
 * the parallel-safety rules of a batch even when the script fires calls together.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ToolLoopGuardrails } from "../../src/agent/guardrails.js";
import { createToolCallService } from "../../src/agent/inner-tools.js";
import { DEFAULT_CONFIG } from "../../src/core/config-defaults.js";
import type { ToolCallService, ToolContext } from "../../src/tools/context.js";
import type { ToolRegistration } from "../../src/tools/registry.js";
import type { ToolOutput } from "../../src/tools/result.js";
import { createHarness, type ToolHarness } from "../tools/helpers.js";

let h: ToolHarness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const schema = {
  description: "d",
  parameters: { type: "object", properties: { path: { type: "string" }, n: { type: "integer" } } },
};

/** A tool that records how many of its calls ran at once; each waits for the rest to start or 300 ms. */
function concurrencyProbe(traits: Pick<ToolRegistration<ToolContext>, "parallelSafe" | "pathScoped">) {
  let running = 0;
  let peak = 0;
  let started = 0;
  const everyoneStarted: Array<() => void> = [];
  const registration: ToolRegistration<ToolContext> = {
    name: "probe",
    toolset: "test",
    schema,
    ...traits,
    handler: async (args) => {
      running += 1;
      started += 1;
      peak = Math.max(peak, running);
      if (started === 5) for (const go of everyoneStarted.splice(0)) go();
      // Serialised calls never see the others start: the timer lets them finish one by one.
      else
        await new Promise<void>((go) => {
          everyoneStarted.push(go);
          setTimeout(go, 300);
        });
      running -= 1;
      return JSON.stringify({ n: args.n });
    },
  };
  return { registration, peak: () => peak };
}

/** Registers `probe` answering with `out`; returns how many times it ran. */
function countingProbe(harness: ToolHarness, out: () => ToolOutput): () => number {
  let ran = 0;
  harness.registry.register({
    name: "probe",
    toolset: "test",
    schema,
    handler: () => {
      ran += 1;
      return out();
    },
  });
  return () => ran;
}

function service(harness: ToolHarness, guard?: ToolLoopGuardrails): ToolCallService {
  return createToolCallService({
    registry: harness.registry,
    available: () => harness.registry.names(),
    ctx: () => harness.ctx,
    emit: () => {},
    ...(guard ? { guard } : {}),
  });
}

const fireFive = (s: ToolCallService, args: (i: number) => Record<string, unknown>) =>
  Promise.all([0, 1, 2, 3, 4].map((i) => s.call("probe", args(i), { parent: "execute_code" })));

describe("a script's tool calls", () => {
  it("run one at a time when the tool is not parallel-safe, though fired together", async () => {
    h = await createHarness();
    const probe = concurrencyProbe({ parallelSafe: false });
    h.registry.register(probe.registration);
    const results = await fireFive(service(h), (i) => ({ n: i }));
    expect(results.map((r) => JSON.parse(r).n)).toEqual([0, 1, 2, 3, 4]);
    expect(probe.peak()).toBe(1);
  });

  it("run together when the tool is parallel-safe", async () => {
    h = await createHarness();
    const probe = concurrencyProbe({ parallelSafe: true });
    h.registry.register(probe.registration);
    await fireFive(service(h), (i) => ({ n: i }));
    expect(probe.peak()).toBe(5);
  });

  it("run together on different paths but one at a time on the same path when path-scoped", async () => {
    h = await createHarness();
    const apart = concurrencyProbe({ pathScoped: true });
    h.registry.register(apart.registration);
    await fireFive(service(h), (i) => ({ path: `dir${i}/f.txt` }));
    expect(apart.peak()).toBe(5);
    const same = concurrencyProbe({ pathScoped: true });
    h.registry.register(same.registration);
    await fireFive(service(h), (i) => ({ path: i % 2 ? "d/x.txt" : "./d/x.txt" }));
    expect(same.peak()).toBe(1);
  });

  it("get the schema check: invalid arguments never reach the handler", async () => {
    h = await createHarness();
    const runs = countingProbe(h, () => "{}");
    const out = await service(h).call("probe", { n: "lots" }, { parent: "execute_code" });
    expect(JSON.parse(out).error).toBe(`Invalid arguments for probe: 'n' must be an integer, got "lots".`);
    expect(runs()).toBe(0);
  });

  it("see a structured error as {error}, count for the loop guard and are refused past its hard stop", async () => {
    h = await createHarness();
    const runs = countingProbe(h, () => ({
      content: [{ type: "text", text: "backend down" }],
      isError: true,
    }));
    const guard = new ToolLoopGuardrails(
      {
        ...DEFAULT_CONFIG.tool_loop_guardrails,
        hard_stop_enabled: true,
        hard_stop_after: { exact_failure: 3, same_tool_failure: 9, idempotent_no_progress: 9 },
      },
      () => false,
    );
    const s = service(h, guard);
    const replies: string[] = [];
    for (let i = 0; i < 4; i++) replies.push(await s.call("probe", { n: 1 }, { parent: "execute_code" }));
    expect(runs()).toBe(3);
    // Guidance is not appended: the script parses the result as JSON.
    expect(replies.slice(0, 3).map((r) => JSON.parse(r))).toEqual(Array(3).fill({ error: "backend down" }));
    expect(JSON.parse(replies[3]!).error).toMatch(/^Not run: this exact probe call already failed 3 times/);
    // The model's own next call of it meets the same guard.
    expect(guard.beforeCall("probe", { n: 1 }).action).toBe("block");
  });
});
