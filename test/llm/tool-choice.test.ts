/** `LlmRequest.toolChoice` in each wire protocol's request body (the SDK-typed params). */
import { describe, expect, it } from "vitest";
import { buildAnthropicParams } from "../../src/llm/anthropic-convert.js";
import { buildChatParams } from "../../src/llm/openai-chat.js";
import { buildResponsesParams } from "../../src/llm/responses-convert.js";
import type { ApiMode, ModelTarget } from "../../src/llm/types.js";
import { READ_FILE_TOOL, request } from "./helpers.js";

const target = (apiMode: ApiMode): ModelTarget => ({
  provider: "custom",
  apiMode,
  model: "m",
  baseUrl: "http://127.0.0.1:1/v1",
  apiKey: "k",
});

const bodies = {
  chat_completions: (choice?: "none" | "auto", tools = [READ_FILE_TOOL]) =>
    buildChatParams(
      request(target("chat_completions"), { tools, ...(choice ? { toolChoice: choice } : {}) }),
    ),
  codex_responses: (choice?: "none" | "auto", tools = [READ_FILE_TOOL]) =>
    buildResponsesParams(
      request(target("codex_responses"), { tools, ...(choice ? { toolChoice: choice } : {}) }),
    ),
  anthropic_messages: (choice?: "none" | "auto", tools = [READ_FILE_TOOL]) =>
    buildAnthropicParams(
      request(target("anthropic_messages"), { tools, ...(choice ? { toolChoice: choice } : {}) }),
    ),
};

describe("toolChoice on the wire", () => {
  it('"none" keeps the tools and forbids calls in each protocol\'s own form', () => {
    const chat = bodies.chat_completions("none");
    expect(chat.tool_choice).toBe("none");
    expect(chat.tools).toHaveLength(1);
    const responses = bodies.codex_responses("none");
    expect(responses.tool_choice).toBe("none");
    expect(responses.tools).toHaveLength(1);
    const anthropic = bodies.anthropic_messages("none");
    expect(anthropic.tool_choice).toEqual({ type: "none" });
    expect(anthropic.tools).toHaveLength(1);
  });

  it("unset sends no tool_choice at all (the provider's default), nor does a request without tools", () => {
    for (const build of Object.values(bodies)) {
      expect("tool_choice" in build()).toBe(false);
      expect("tool_choice" in build("none", [])).toBe(false);
    }
  });

  it("the tools are byte-identical with and without the choice (the cached prefix holds)", () => {
    for (const build of Object.values(bodies)) {
      expect(JSON.stringify(build("none").tools)).toBe(JSON.stringify(build().tools));
    }
  });
});
