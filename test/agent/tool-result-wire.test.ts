/**
 * Structured tool results on the wire, through the real agent, SDKs and fake provider: an image a
 * tool returns reaches the next request as an image part where the protocol's tool results carry
 * images (Anthropic, Responses) and as a note where they do not (chat completions); a string
 * result is sent byte for byte; a call with invalid arguments is answered by the schema check.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { TOOL_IMAGE_NOTE } from "../../src/agent/request-repair.js";
import { DEFAULT_CONFIG } from "../../src/core/config.js";
import type { ApiMode } from "../../src/llm/types.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { type FakeLlm, type RecordedRequest, type ScriptedTurn, startFakeLlm } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";

const PNG = Buffer.from("\x89PNG fake image bytes").toString("base64");
const PLAIN = '{"output":"héllo \\"quoted\\"\\n","exit_code":0}';

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(() => fake.close());

let handlerCalls = 0;
function registry(): HermesToolRegistry {
  const r: HermesToolRegistry = new ToolRegistry<ToolContext>();
  r.register({
    name: "screenshot",
    toolset: "t",
    schema: { description: "Capture the screen.", parameters: { type: "object", properties: {} } },
    handler: () => ({
      content: [
        { type: "text", text: "Captured the page." },
        { type: "image", mimeType: "image/png", data: PNG },
      ],
      details: { width: 1280 },
    }),
  });
  r.register({
    name: "plain",
    toolset: "t",
    schema: {
      description: "Plain text result.",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
    handler: () => {
      handlerCalls += 1;
      return PLAIN;
    },
  });
  return r;
}

/**
 * One conversation in which the model calls `tool` once and then answers (after `refusals`, the
 * provider's errors for the request carrying the result); returns the requests after the first.
 */
async function laterRequests(
  apiMode: ApiMode,
  tool: string,
  args: Record<string, unknown>,
  refusals: ScriptedTurn[] = [],
): Promise<RecordedRequest[]> {
  const home = tempDir("hermes-wire-");
  const environments = createLocalEnvironmentProvider({ cwd: home, home });
  const before = fake.requests.length;
  fake.enqueue({ toolCalls: [{ name: tool, arguments: args }] }, ...refusals, { text: "done" });
  const anthropic = apiMode === "anthropic_messages";
  const agent = new Agent({
    target: {
      provider: anthropic ? "anthropic" : "custom",
      apiMode,
      model: anthropic ? "claude-sonnet-4-6" : "gpt-test",
      baseUrl: anthropic ? fake.anthropicBaseUrl : fake.openaiBaseUrl,
      apiKey: "k",
    },
    registry: registry(),
    toolNames: new Set(["screenshot", "plain"]),
    config: structuredClone(DEFAULT_CONFIG),
    home,
    environments,
    maxRetries: 0,
  });
  try {
    const r = await agent.runConversation("go");
    expect(r.status).toBe("completed");
  } finally {
    await environments.disposeAll();
  }
  expect(fake.requests.length - before).toBe(2 + refusals.length);
  return fake.requests.slice(before + 1);
}

const secondRequest = async (apiMode: ApiMode, tool: string, args: Record<string, unknown>) =>
  (await laterRequests(apiMode, tool, args))[0]!;

describe("tool results on the wire", () => {
  it("Anthropic: the image is an image block inside the tool_result", async () => {
    const req = await secondRequest("anthropic_messages", "screenshot", {});
    const blocks = (req.body.messages as Array<{ role: string; content: unknown[] }>).flatMap((m) =>
      Array.isArray(m.content) ? m.content : [],
    ) as Array<{ type: string; content?: unknown }>;
    const result = blocks.find((b) => b.type === "tool_result")!;
    expect(result.content).toEqual([
      expect.objectContaining({ type: "text", text: "Captured the page." }),
      expect.objectContaining({
        type: "image",
        source: { type: "base64", media_type: "image/png", data: PNG },
      }),
    ]);
    // Details are for front ends only.
    expect(req.rawBody).not.toContain("1280");
  });

  it("Anthropic: a model that refuses images in tool results gets the request again with a note", async () => {
    const refusal: ScriptedTurn = {
      fault: {
        kind: "http",
        status: 400,
        body: {
          type: "error",
          error: { type: "invalid_request_error", message: "images are not supported in tool results" },
        },
      },
    };
    const [refused, repaired] = await laterRequests("anthropic_messages", "screenshot", {}, [refusal]);
    expect(refused!.rawBody).toContain(PNG);
    expect(repaired!.rawBody).not.toContain(PNG);
    expect(repaired!.rawBody).toContain(JSON.stringify(`Captured the page.\n\n${TOOL_IMAGE_NOTE}`));
  });

  it("Responses: the image is an input_image in the function_call_output", async () => {
    const req = await secondRequest("codex_responses", "screenshot", {});
    const output = (req.body.input as Array<{ type: string; output?: unknown }>).find(
      (i) => i.type === "function_call_output",
    )!.output;
    expect(output).toEqual([
      { type: "input_text", text: "Captured the page." },
      { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
    ]);
  });

  it("chat completions: tool messages carry text only, so a note stands in for the image", async () => {
    const req = await secondRequest("chat_completions", "screenshot", {});
    const tool = (req.body.messages as Array<{ role: string; content: unknown }>).find(
      (m) => m.role === "tool",
    )!;
    expect(tool.content).toBe(
      "Captured the page.\n\n[1 image from this tool left out: tool results carry text only on this provider.]",
    );
    expect(req.rawBody).not.toContain(PNG);
  });

  it("sends a string result byte for byte, on every protocol", async () => {
    const chat = await secondRequest("chat_completions", "plain", { path: "a" });
    const tool = (chat.body.messages as Array<{ role: string; content: unknown }>).find(
      (m) => m.role === "tool",
    )!;
    expect(tool.content).toBe(PLAIN);
    expect(chat.rawBody).toContain(JSON.stringify(PLAIN));
    const claude = await secondRequest("anthropic_messages", "plain", { path: "a" });
    expect(claude.rawBody).toContain(`"type":"tool_result","tool_use_id":`);
    expect(claude.rawBody).toContain(`"content":${JSON.stringify(PLAIN)}`);
    const responses = await secondRequest("codex_responses", "plain", { path: "a" });
    const output = (responses.body.input as Array<{ type: string; output?: unknown }>).find(
      (i) => i.type === "function_call_output",
    )!.output;
    expect(output).toBe(PLAIN);
  });

  it("answers a call with invalid arguments with the schema error; the handler never runs", async () => {
    handlerCalls = 0;
    const req = await secondRequest("chat_completions", "plain", { file: "a" });
    const tool = (req.body.messages as Array<{ role: string; content: unknown }>).find(
      (m) => m.role === "tool",
    )!;
    expect(tool.content).toBe(`{"error":"Invalid arguments for plain: 'path' is required (string)."}`);
    expect(handlerCalls).toBe(0);
  });
});
