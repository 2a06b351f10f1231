import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";
import { KEY, useApiServer } from "./support.js";

const api = useApiServer();

interface ErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
}

const PERSON = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" } },
  required: ["name", "age"],
  additionalProperties: false,
} as const;

const anthropicConfig = (fake: FakeLlm): string =>
  `model:\n  provider: custom\n  base_url: ${fake.anthropicBaseUrl}\n  api_mode: anthropic_messages\n  default: claude-test\nagent:\n  api_max_retries: 0\n`;

const responsesConfig = (fake: FakeLlm): string =>
  `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  api_mode: codex_responses\n  default: test-model\nagent:\n  api_max_retries: 0\n`;

/** The text of the last user message of an Anthropic request. */
const lastAnthropicUser = (req: RecordedRequest): string => {
  const user = (
    req.body.messages as Array<{ role: string; content: string | Array<{ text?: string }> }>
  ).findLast((m) => m.role === "user");
  return typeof user?.content === "string"
    ? user.content
    : (user?.content ?? []).map((p) => p.text ?? "").join("");
};

describe("chat completions parameters", () => {
  it("carries max_tokens, temperature, top_p, stop, seed, penalties and response_format to the model", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: '{"ok": true}' });
    const done = await t.client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "answer in JSON" }],
      max_tokens: 50,
      temperature: 0.3,
      top_p: 0.9,
      stop: ["END"],
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      response_format: { type: "json_object" },
      // Fields the server does not use are ignored, as OpenAI's own clients expect.
      parallel_tool_calls: false,
      metadata: { trace: "x" },
    });
    expect(done.choices[0]?.message.content).toBe('{"ok": true}');
    expect(api.fake.requests[0]!.body).toMatchObject({
      max_tokens: 50,
      temperature: 0.3,
      top_p: 0.9,
      stop: ["END"],
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      response_format: { type: "json_object" },
    });
  });

  it("takes max_completion_tokens as the output cap, and reports an answer cut by it with finish_reason length", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "a cut-off answ", finishReason: "length" });
    const done = await t.client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "write a lot" }],
      max_completion_tokens: 5,
    });
    expect(api.fake.requests[0]!.body.max_tokens).toBe(5);
    expect(done.choices[0]?.finish_reason).toBe("length");
  });

  it("refuses n above 1, logprobs and out-of-range values with a 400 naming the field", async () => {
    const t = await api.start();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ n: 2 }, "n", /^n must be 1: this server runs one agent per request/],
      [{ logprobs: true }, "logprobs", /not supported/],
      [{ temperature: 3 }, "temperature", /from 0 to 2/],
      [{ max_tokens: 0 }, "max_tokens", /at least 1/],
      [{ stop: ["a", "b", "c", "d", "e"] }, "stop", /at most 4/],
      [
        { response_format: { type: "xml" } },
        "response_format.type",
        /must be one of text, json_object, json_schema/,
      ],
      [
        {
          response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "nonsense" } } },
        },
        "response_format.json_schema.schema",
        /not a usable JSON schema/,
      ],
    ];
    for (const [fields, param, message] of cases) {
      const res = await t.post("/v1/chat/completions", {
        messages: [{ role: "user", content: "hi" }],
        ...fields,
      });
      expect(res.status, JSON.stringify(fields)).toBe(400);
      const err = ((await res.json()) as ErrorBody).error;
      expect(err.param).toBe(param);
      expect(err.message).toMatch(message);
    }
    expect(api.fake.requests).toHaveLength(0);
    api.fake.enqueue({ text: "one" });
    const one = await t.post("/v1/chat/completions", { n: 1, messages: [{ role: "user", content: "hi" }] });
    expect(one.status).toBe(200);
  });

  it("works with chat.completions.parse() and a plain JSON schema", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: '{"name": "Ada", "age": 36}' });
    const done = await t.client.chat.completions.parse({
      model: "hermes-agent",
      messages: [{ role: "user", content: "Who wrote the first program? Name and age at death." }],
      response_format: { type: "json_schema", json_schema: { name: "person", schema: PERSON, strict: true } },
    });
    expect(done.choices).toHaveLength(1);
    expect(done.choices[0]?.message.parsed).toEqual({ name: "Ada", age: 36 });
    expect(api.fake.requests[0]!.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "person", schema: PERSON, strict: true },
    });
  });

  it("asks a model whose protocol has no response_format in words, and repairs a wrong answer once", async () => {
    const t = await api.start("", {}, anthropicConfig);
    api.fake.enqueue({ text: '{"name": "Ada"}' }, { text: '```json\n{"name": "Ada", "age": 36}\n```' });
    const done = await t.client.chat.completions.parse({
      model: "hermes-agent",
      messages: [{ role: "user", content: "Who wrote the first program?" }],
      response_format: { type: "json_schema", json_schema: { name: "person", schema: PERSON } },
      stop: ["END"],
      seed: 3,
    });
    expect(done.choices[0]?.message.parsed).toEqual({ name: "Ada", age: 36 });
    expect(done.choices[0]?.message.content).toBe('{"name": "Ada", "age": 36}');
    expect(api.fake.requests).toHaveLength(2);
    const [first, second] = api.fake.requests;
    expect(first!.protocol).toBe("anthropic");
    // The wire carries what it can: stop sequences; no seed, no response_format field.
    expect(first!.body.stop_sequences).toEqual(["END"]);
    expect(first!.body.seed).toBeUndefined();
    expect(first!.body.response_format).toBeUndefined();
    expect(lastAnthropicUser(first!)).toContain("<response_format>");
    expect(lastAnthropicUser(first!)).toContain('"required":["name","age"]');
    expect(lastAnthropicUser(second!)).toMatch(
      /does not match the schema: \(the object\) must have required property 'age'/,
    );
  });

  it("answers 502 (not retried) when the answer still fails the format after the repair turn", async () => {
    const t = await api.start("", {}, anthropicConfig);
    api.fake.enqueue({ text: "no JSON here" }, { text: "still none" });
    const client = new OpenAI({ apiKey: KEY, baseURL: `${t.url}/v1` });
    const failure = await client.chat.completions
      .create({
        model: "m",
        messages: [{ role: "user", content: "json please" }],
        response_format: { type: "json_object" },
      })
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(OpenAI.InternalServerError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe("invalid_structured_output");
    // Two model calls (answer, repair), and the SDK did not run the agent again.
    expect(api.fake.requests).toHaveLength(2);
  });

  it("streams a structured answer whole, once checked", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: '{"name": "Ada", "age": 36}', chunkSize: 3 });
    const stream = await t.client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "json" }],
      stream: true,
      response_format: { type: "json_schema", json_schema: { name: "person", schema: PERSON } },
    });
    const pieces: string[] = [];
    for await (const chunk of stream)
      if (chunk.choices[0]?.delta.content) pieces.push(chunk.choices[0].delta.content);
    expect(pieces).toEqual(['{"name": "Ada", "age": 36}']);
  });

  it("refuses stop when the configured model's protocol has no field for it", async () => {
    const t = await api.start("", {}, responsesConfig);
    const res = await t.post("/v1/chat/completions", {
      messages: [{ role: "user", content: "hi" }],
      stop: "END",
    });
    expect(res.status).toBe(400);
    const err = ((await res.json()) as ErrorBody).error;
    expect(err).toMatchObject({ code: "unsupported_parameter", param: "stop" });
    expect(err.message).toMatch(/codex_responses/);
    expect(api.fake.requests).toHaveLength(0);
  });
});

describe("Responses parameters", () => {
  it("carries max_output_tokens, temperature, top_p and text.format to the model and echoes them", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: '{"name": "Ada", "age": 36}' });
    const format = { type: "json_schema" as const, name: "person", schema: PERSON, strict: true };
    const response = await t.client.responses.parse({
      model: "hermes-agent",
      input: "Who wrote the first program?",
      max_output_tokens: 64,
      temperature: 0.2,
      top_p: 0.5,
      text: { format },
    });
    expect(response.output_parsed).toEqual({ name: "Ada", age: 36 });
    expect(response).toMatchObject({ max_output_tokens: 64, temperature: 0.2, top_p: 0.5 });
    expect(response.text?.format).toMatchObject({ type: "json_schema", name: "person" });
    expect(api.fake.requests[0]!.body).toMatchObject({
      max_tokens: 64,
      temperature: 0.2,
      top_p: 0.5,
      response_format: { type: "json_schema", json_schema: { name: "person", schema: PERSON, strict: true } },
    });
  });

  it("sends text.format to a Responses-protocol model as its own text.format", async () => {
    const t = await api.start("", {}, responsesConfig);
    api.fake.enqueue({ text: '{"a": 1}' });
    const res = await t.post("/v1/responses", {
      input: "json",
      text: { format: { type: "json_object" } },
      max_output_tokens: 32,
    });
    expect(res.status).toBe(200);
    const sent = api.fake.requests[0]!;
    expect(sent.protocol).toBe("responses");
    expect(sent.body.text).toEqual({ format: { type: "json_object" } });
    expect(sent.body.max_output_tokens).toBe(32);
  });
});
