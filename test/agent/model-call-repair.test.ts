import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { callModel } from "../../src/agent/model-call.js";
import { applyRepair, repairFor, TOOL_IMAGE_NOTE } from "../../src/agent/request-repair.js";
import { streamAnthropic } from "../../src/llm/anthropic.js";
import { streamOpenAIChat } from "../../src/llm/openai-chat.js";
import { ProviderRouter } from "../../src/llm/provider-router.js";
import { streamResponses } from "../../src/llm/responses.js";
import type { ApiMode, ChatMessage, ModelTarget, StreamFn } from "../../src/llm/types.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";

let fake: FakeLlm;
// A server per test: a turn one test left queued must not answer the next.
beforeEach(async () => {
  fake = await startFakeLlm();
});
afterEach(() => fake.close());

const STREAMS: Record<Exclude<ApiMode, "bedrock_converse">, StreamFn> = {
  chat_completions: streamOpenAIChat,
  anthropic_messages: streamAnthropic,
  codex_responses: streamResponses,
};

function targetFor(apiMode: keyof typeof STREAMS, provider = "primary"): ModelTarget {
  return {
    provider,
    apiMode,
    model: apiMode === "codex_responses" ? "gpt-5" : "model-a",
    baseUrl: apiMode === "anthropic_messages" ? fake.anthropicBaseUrl : fake.openaiBaseUrl,
    apiKey: "k",
    maxTokens: 1024,
  };
}

/** callModel over the fake server with the real SDK stream functions, no backoff waits. */
async function call(apiMode: keyof typeof STREAMS, history: ChatMessage[], fallbacks: ModelTarget[] = []) {
  const events: AgentEvent[] = [];
  const primary = targetFor(apiMode);
  const result = await callModel({
    streamFn: (req) => STREAMS[req.target.apiMode as keyof typeof STREAMS](req),
    buildRequest: (target) => ({ target, messages: history, tools: [] }),
    router: new ProviderRouter(
      { target: primary },
      fallbacks.map((target) => ({ target })),
    ),
    maxRetries: 3,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 2,
    emit: (e) => events.push(e),
    signal: new AbortController().signal,
  });
  const statuses = events.flatMap((e) => (e.type === "status" ? [`${e.kind}: ${e.message}`] : []));
  return { result, bodies: fake.requests.map((r) => r.body), statuses };
}

const refuse = (status: number, body: unknown) => ({ fault: { kind: "http" as const, status, body } });
const oa = (message: string, code: string | null = null) => ({
  error: { message, type: "invalid_request_error", param: null, code },
});
const an = (message: string) => ({ type: "error", error: { type: "invalid_request_error", message } });
const PNG = "data:image/png;base64,iVBORw0KGgo=";

/** A tool turn whose result came with a screenshot, after a question that had a photo of its own. */
function toolTurnWithImages(): ChatMessage[] {
  return [
    {
      role: "user",
      content: [
        { type: "text", text: "what is in this photo?" },
        { type: "image_url", image_url: { url: PNG } },
      ],
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "browser_screenshot", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", name: "browser_screenshot", content: "Screenshot taken." },
    { role: "user", content: [{ type: "image_url", image_url: { url: PNG } }] },
  ];
}

describe("callModel: replayed reasoning the provider rejects is dropped and sent again once", () => {
  const reasoningHistory = (): ChatMessage[] => [
    { role: "user", content: "list the files" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } }],
      reasoning_items: [{ encrypted_content: "gAAAA-stale-blob", summary: ["Listing files."] }],
      thinking_blocks: [{ type: "thinking", thinking: "List them.", signature: "sig-from-another-key" }],
    },
    { role: "tool", tool_call_id: "call_1", content: "a.txt" },
  ];

  it("Responses: invalid encrypted content → the same request without reasoning items", async () => {
    fake.enqueue(
      refuse(
        400,
        oa("The encrypted content for item rs_1 could not be verified.", "invalid_encrypted_content"),
      ),
      { text: "a.txt is there" },
    );
    const history = reasoningHistory();
    const { result, bodies, statuses } = await call("codex_responses", history);
    expect(result.ok).toBe(true);
    expect(bodies).toHaveLength(2);
    const kinds = (body: { input: Array<{ type: string }> }) => body.input.map((i) => i.type);
    expect(kinds(bodies[0])).toContain("reasoning");
    expect(kinds(bodies[1])).not.toContain("reasoning");
    expect(kinds(bodies[1])).toEqual(kinds(bodies[0]).filter((k) => k !== "reasoning"));
    expect(statuses).toEqual([
      "retry: invalid_encrypted_content: the provider rejected the replayed reasoning; sending the request again without it",
    ]);
    // Only the request changed: the history keeps what the provider sent.
    expect(history[1]).toMatchObject({ reasoning_items: [{ encrypted_content: "gAAAA-stale-blob" }] });
  });

  it("Anthropic: an invalid thinking signature → the same request without thinking blocks", async () => {
    fake.enqueue(refuse(400, an("messages.1.content.0: Invalid `signature` in `thinking` block")), {
      text: "ok",
    });
    const { result, bodies } = await call("anthropic_messages", reasoningHistory());
    expect(result.ok).toBe(true);
    const blockTypes = (body: { messages: Array<{ content: Array<{ type: string }> }> }) =>
      body.messages[1]!.content.map((b) => b.type);
    expect(blockTypes(bodies[0])).toEqual(["thinking", "tool_use"]);
    expect(blockTypes(bodies[1])).toEqual(["tool_use"]);
  });

  it("repairs once: a second rejection ends the call with the provider's words", async () => {
    const words = "The encrypted content for item rs_2 could not be verified.";
    fake.enqueue(
      refuse(400, oa(words, "invalid_encrypted_content")),
      refuse(400, oa(words, "invalid_encrypted_content")),
    );
    const { result, bodies, statuses } = await call("codex_responses", reasoningHistory());
    expect(bodies).toHaveLength(2);
    expect(statuses).toHaveLength(1);
    expect(!result.ok && result.error).toMatchObject({
      reason: "invalid_encrypted_content",
      retryable: false,
    });
    expect(!result.ok && result.error.message).toContain(words);
  });

  it("with no reasoning to drop, nothing is resent", async () => {
    fake.enqueue(refuse(400, oa("Encrypted content could not be decrypted or parsed.")));
    const { result, bodies, statuses } = await call("codex_responses", [{ role: "user", content: "hi" }]);
    expect(bodies).toHaveLength(1);
    expect(statuses).toEqual([]);
    expect(!result.ok && result.error.reason).toBe("invalid_encrypted_content");
  });
});

describe("callModel: images sent with tool results become text notes once the server refuses them", () => {
  it("Anthropic: the tool turn's image is replaced by a note, the user's own photo is kept", async () => {
    fake.enqueue(refuse(400, an("messages.2.content.1: images are not supported in tool results")), {
      text: "a login page",
    });
    const { result, bodies, statuses } = await call("anthropic_messages", toolTurnWithImages());
    expect(result.ok && result.message.content).toBe("a login page");
    type Block = { type: string; text?: string };
    const turn = (body: { messages: Array<{ content: Block[] }> }, i: number) => body.messages[i]!.content;
    expect(turn(bodies[0], 2).map((b) => b.type)).toEqual(["tool_result", "image"]);
    expect(turn(bodies[1], 2)).toEqual([
      expect.objectContaining({ type: "tool_result" }),
      expect.objectContaining({ type: "text", text: TOOL_IMAGE_NOTE }),
    ]);
    expect(turn(bodies[1], 0).map((b) => b.type)).toEqual(["text", "image"]);
    expect(statuses).toEqual([
      "retry: multimodal_tool_content_unsupported: the provider takes no images in tool results; sending them again as text notes",
    ]);
  });

  it("chat completions: the same repair, and a server that still refuses ends the call", async () => {
    const refusal = oa("Invalid 'messages[3]': tool messages must contain text only.");
    fake.enqueue(refuse(400, refusal), refuse(400, refusal));
    const { result, bodies } = await call("chat_completions", toolTurnWithImages());
    expect(bodies).toHaveLength(2);
    expect(bodies[1].messages[3].content).toEqual([{ type: "text", text: TOOL_IMAGE_NOTE }]);
    expect(bodies[1].messages[0].content[1].type).toBe("image_url");
    expect(!result.ok && result.error.message).toContain("tool messages must contain text only");
    expect(!result.ok && result.error.message).toContain("Use a model that reads images in tool results.");
  });

  it("with no image near a tool result, nothing is resent", async () => {
    fake.enqueue(refuse(400, oa("tool message content must be a string")));
    const { bodies } = await call("chat_completions", [
      { role: "user", content: [{ type: "image_url", image_url: { url: PNG } }] },
    ]);
    expect(bodies).toHaveLength(1);
  });
});

describe("callModel: a content-policy refusal", () => {
  it("is neither retried nor handed to a fallback, and shows the provider's reason", async () => {
    const words = "Your prompt was flagged as potentially violating our usage policy.";
    fake.enqueue(refuse(400, oa(words, "invalid_prompt")));
    const { result, bodies, statuses } = await call(
      "chat_completions",
      [{ role: "user", content: "..." }],
      [targetFor("chat_completions", "backup")],
    );
    expect(bodies).toHaveLength(1);
    expect(statuses).toEqual([]);
    expect(!result.ok && result.error).toMatchObject({ reason: "content_policy_blocked", retryable: false });
    expect(!result.ok && result.error.message).toContain(words);
  });
});

describe("request repairs", () => {
  it("map only the repairable reasons", () => {
    expect(repairFor("invalid_encrypted_content")).toBe("drop_reasoning");
    expect(repairFor("thinking_signature")).toBe("drop_reasoning");
    expect(repairFor("multimodal_tool_content_unsupported")).toBe("tool_images_to_text");
    expect(repairFor("content_policy_blocked")).toBeUndefined();
    expect(repairFor("format_error")).toBeUndefined();
  });

  it("leave images that do not follow a tool result alone", () => {
    const history = toolTurnWithImages();
    const repaired = applyRepair(history, "tool_images_to_text");
    expect(repaired?.[0]).toBe(history[0]);
    expect(repaired?.[3]).toEqual({ role: "user", content: [{ type: "text", text: TOOL_IMAGE_NOTE }] });
    // A new question after the model's answer starts a turn of its own.
    const later: ChatMessage[] = [...history, { role: "assistant", content: "done" }, history[0]!];
    expect(applyRepair(later, "tool_images_to_text")?.[5]).toBe(history[0]);
  });
});
