import { describe, expect, it } from "vitest";
import { startFakeLlm } from "../support/fake-llm.js";

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("fake LLM server", () => {
  it("serves models, non-streamed replies in both formats, and vendor-shaped errors", async () => {
    const fake = await startFakeLlm({
      turns: [
        { text: "plain", toolCalls: [{ name: "t", arguments: { a: 1 }, id: "call_9" }] },
        { text: "claude" },
      ],
    });
    try {
      const models = (await (await fetch(`${fake.openaiBaseUrl}/models`)).json()) as {
        data: { id: string }[];
      };
      expect(models.data.map((m) => m.id)).toContain("fake-model");

      const chat = (await (
        await post(`${fake.openaiBaseUrl}/chat/completions`, { model: "m", messages: [] })
      ).json()) as {
        choices: {
          message: { content: string; tool_calls: { function: { arguments: string } }[] };
          finish_reason: string;
        }[];
      };
      expect(chat.choices[0]!.message.content).toBe("plain");
      expect(chat.choices[0]!.message.tool_calls[0]!.function.arguments).toBe('{"a":1}');
      expect(chat.choices[0]!.finish_reason).toBe("tool_calls");

      const msg = (await (await post(`${fake.url}/v1/messages`, { model: "m", messages: [] })).json()) as {
        content: { type: string; text: string }[];
        stop_reason: string;
      };
      expect(msg.content).toEqual([{ type: "text", text: "claude", citations: null }]);
      expect(msg.stop_reason).toBe("end_turn");

      const exhausted = await post(`${fake.url}/v1/messages`, { model: "m", messages: [] });
      expect(exhausted.status).toBe(500);
      expect(await exhausted.json()).toEqual({
        type: "error",
        error: { type: "api_error", message: "fake-llm: script exhausted (no turn queued for request #3)" },
      });
      expect(fake.requests.map((r) => r.protocol)).toEqual(["openai", "anthropic", "anthropic"]);
      expect(fake.requests[0]!.stream).toBe(false);
    } finally {
      await fake.close();
    }
  });

  it("uses the responder when the queue is empty and adds retry-after to 429s", async () => {
    const fake = await startFakeLlm();
    try {
      fake.setResponder((req) =>
        req.body.model === "limited" ? { fault: { kind: "http", status: 429 } } : { text: "dyn" },
      );
      const limited = await post(`${fake.openaiBaseUrl}/chat/completions`, {
        model: "limited",
        messages: [],
      });
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("1");
      expect(((await limited.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
      const ok = await post(`${fake.openaiBaseUrl}/chat/completions`, { model: "x", messages: [] });
      expect(ok.status).toBe(200);
    } finally {
      await fake.close();
    }
  });

  it("closes cleanly while a request hangs", async () => {
    const fake = await startFakeLlm({ turns: [{ fault: { kind: "hang" } }] });
    const hung = post(`${fake.openaiBaseUrl}/chat/completions`, { model: "m", messages: [] }).then(
      () => "answered",
      () => "failed",
    );
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    await fake.close();
    expect(await hung).toBe("failed");
  });
});
