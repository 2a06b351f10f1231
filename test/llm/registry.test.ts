import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { streamAnthropic } from "../../src/llm/anthropic.js";
import { streamOpenAIChat } from "../../src/llm/openai-chat.js";
import { getStreamFn, streamLlm } from "../../src/llm/registry.js";
import { streamResponses } from "../../src/llm/responses.js";
import type { ApiMode } from "../../src/llm/types.js";
import { failed, request, run } from "./helpers.js";

describe("getStreamFn", () => {
  it("maps the implemented protocols", () => {
    expect(getStreamFn("chat_completions")).toBe(streamOpenAIChat);
    expect(getStreamFn("anthropic_messages")).toBe(streamAnthropic);
    expect(getStreamFn("codex_responses")).toBe(streamResponses);
  });

  it.each(["bedrock_converse"] as const)("%s fails at once, non-retryably", async (mode: ApiMode) => {
    const target = {
      provider: "x",
      apiMode: mode,
      model: "gpt-5-codex",
      baseUrl: "http://127.0.0.1:1",
      apiKey: "",
    };
    const c = await run(getStreamFn(mode), request(target));
    expect(c.events).toHaveLength(1);
    const err = failed(c);
    // A configured fallback speaking another protocol can still answer.
    expect(err.error).toMatchObject({ reason: "format_error", retryable: false, shouldFallback: true });
    expect(err.error.message).toContain(`${mode} (model gpt-5-codex) is not supported`);
    const viaTarget = await run(streamLlm, request(target));
    expect(failed(viaTarget).error.reason).toBe("format_error");
  });
});

describe("startup cost", () => {
  it("no src/llm module imports an SDK or undici at runtime from the top level", () => {
    const dir = join(import.meta.dirname, "../../src/llm");
    const offenders: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const source = readFileSync(join(dir, file), "utf8");
      for (const m of source.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms)) {
        if (/^(openai|@anthropic-ai\/sdk|undici)(\/|$)/.test(m[1]!)) offenders.push(`${file}: ${m[1]}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
