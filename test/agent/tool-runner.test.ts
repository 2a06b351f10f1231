/**
 * The tool runner with structured results: images and details ride on the run result and the tool
 * message, error results and failed commands count as failures for the loop guardrails, and a
 * string result reaches the history exactly as before.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { type GuardrailSettings, ToolLoopGuardrails } from "../../src/agent/guardrails.js";
import type { PreparedCall } from "../../src/agent/tool-calls.js";
import { runToolBatch, toolMessage } from "../../src/agent/tool-runner.js";
import { DEFAULT_CONFIG } from "../../src/core/config-defaults.js";
import type { ToolOutput } from "../../src/tools/result.js";
import { createHarness, type ToolHarness } from "../tools/helpers.js";

const PNG = Buffer.from("png-bytes").toString("base64");
const schema = { description: "d", parameters: { type: "object", properties: { n: { type: "integer" } } } };

let h: ToolHarness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

let ids = 0;
const prepared = (name: string, args: Record<string, unknown> = {}): PreparedCall => ({
  call: { id: `c${++ids}`, type: "function", function: { name, arguments: JSON.stringify(args) } },
  toolName: name,
  args,
  argsRepaired: false,
});

async function harnessWith(tools: Record<string, () => ToolOutput>): Promise<ToolHarness> {
  const harness = await createHarness();
  for (const [name, out] of Object.entries(tools))
    harness.registry.register({ name, toolset: "test", schema, handler: out });
  return harness;
}

const guardrails = (over: Partial<GuardrailSettings> = {}) =>
  new ToolLoopGuardrails({ ...DEFAULT_CONFIG.tool_loop_guardrails, ...over }, () => false);

describe("tool runner: structured results", () => {
  it("carries a result's images and details to the tool message; a string result's message is unchanged", async () => {
    h = await harnessWith({
      shot: () => ({
        content: [
          { type: "text", text: "captured" },
          { type: "image", mimeType: "image/png", data: PNG },
        ],
        details: { width: 800 },
      }),
      plain: () => '{"ok":true}',
    });
    const events: AgentEvent[] = [];
    const [shot, plain] = await runToolBatch([prepared("shot"), prepared("plain")], {
      registry: h.registry,
      ctx: h.ctx,
      emit: (e) => events.push(e),
    });
    expect(shot).toMatchObject({ content: "captured", isError: false, details: { width: 800 } });
    expect(shot!.images).toEqual([{ type: "image", mimeType: "image/png", data: PNG }]);
    expect(toolMessage(shot!, "\n\nnote")).toEqual({
      role: "tool",
      tool_call_id: shot!.callId,
      name: "shot",
      content: "captured\n\nnote",
      images: [{ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }],
    });
    expect(toolMessage(plain!)).toEqual({
      role: "tool",
      tool_call_id: plain!.callId,
      name: "plain",
      content: '{"ok":true}',
    });
    expect(events.filter((e) => e.type === "tool_end").map((e) => e.type === "tool_end" && e.result)).toEqual(
      ["captured", '{"ok":true}'],
    );
  });

  it("answers invalid arguments with the schema error and reports it as an error", async () => {
    let ran = 0;
    h = await harnessWith({
      count: () => {
        ran += 1;
        return "ok";
      },
    });
    const [r] = await runToolBatch([prepared("count", { n: "many" })], {
      registry: h.registry,
      ctx: h.ctx,
      emit: () => {},
    });
    expect(r).toMatchObject({
      isError: true,
      content: `{"error":"Invalid arguments for count: 'n' must be an integer, got \\"many\\"."}`,
    });
    expect(ran).toBe(0);
  });

  it("counts an isError result as a failure for the guardrails, though its text is no error JSON", async () => {
    h = await harnessWith({
      flaky: () => ({ content: [{ type: "text", text: "quota exceeded" }], isError: true }),
    });
    const guard = guardrails();
    const run = async () =>
      (
        await runToolBatch([prepared("flaky", { n: 1 })], {
          registry: h!.registry,
          ctx: h!.ctx,
          emit: () => {},
          guard,
        })
      )[0]!;
    expect((await run()).content).toBe("quota exceeded");
    const second = await run();
    expect(second.isError).toBe(true);
    expect(second.content).toMatch(
      /^quota exceeded\n\n\[Loop guard: this exact flaky call has now failed 2 times/,
    );
  });

  it("reads a command's failure from its exit code detail, not from its text", async () => {
    h = await harnessWith({
      exits: () => ({ content: [{ type: "text", text: '{"output":""}' }], details: { exitCode: 2 } }),
      says: () => '{"output":"", "exit_code": 1}',
    });
    const guard = guardrails({
      warn_after: { exact_failure: 2, same_tool_failure: 2, idempotent_no_progress: 9 },
    });
    const batch = (name: string) =>
      runToolBatch([prepared(name)], { registry: h!.registry, ctx: h!.ctx, emit: () => {}, guard });
    await batch("exits");
    const [failedTwice] = await batch("exits");
    expect(failedTwice!.isError).toBe(false);
    expect(failedTwice!.content).toContain("[Loop guard: this exact exits call has now failed 2 times");
    await batch("says");
    const [textOnly] = await batch("says");
    expect(textOnly!.content).toBe('{"output":"", "exit_code": 1}');
  });

  it("stops a call the hard-stop guard refuses without running it", async () => {
    let ran = 0;
    h = await harnessWith({
      broken: () => {
        ran += 1;
        return { content: [{ type: "text", text: "down" }], isError: true };
      },
    });
    const guard = guardrails({
      hard_stop_enabled: true,
      hard_stop_after: { exact_failure: 2, same_tool_failure: 9, idempotent_no_progress: 9 },
    });
    const opts = { registry: h.registry, ctx: h.ctx, emit: () => {}, guard };
    await runToolBatch([prepared("broken")], opts);
    await runToolBatch([prepared("broken")], opts);
    const [third] = await runToolBatch([prepared("broken")], opts);
    expect(ran).toBe(2);
    expect(third).toMatchObject({ isError: true });
    expect(JSON.parse(third!.content).error).toMatch(
      /^Not run: this exact broken call already failed 2 times/,
    );
  });

  it("redacts secrets from a structured result's text and keeps its images", async () => {
    const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
    h = await harnessWith({
      leak: () => ({
        content: [
          { type: "text", text: `token: ${secret}` },
          { type: "image", mimeType: "image/png", data: PNG },
        ],
      }),
    });
    const [r] = await runToolBatch([prepared("leak")], { registry: h.registry, ctx: h.ctx, emit: () => {} });
    expect(r!.content).not.toContain(secret);
    expect(r!.images).toHaveLength(1);
  });
});
