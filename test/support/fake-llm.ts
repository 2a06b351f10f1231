/**
 * Scripted fake LLM server speaking the real wire formats: OpenAI chat completions
 * (POST /v1/chat/completions), OpenAI Responses (POST /v1/responses) and Anthropic messages
 * (POST /v1/messages), streamed (SSE) or not, with fault injection. The one thing faked in tests and benches: the code under test uses the real
 * SDK clients against it. Imports only node built-ins and uses erasable TypeScript only, so
 * `node bench/x.ts` can import it directly.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ScriptedToolCall {
  name: string;
  arguments: string | Record<string, unknown>;
  id?: string;
}

export type Fault =
  /** An error response; `headers`, when given, replace the default `retry-after: 1` of a 429. */
  | { kind: "http"; status: number; body?: unknown; headers?: Record<string, string> }
  /** Accept the request, never answer (until the client aborts or the server closes). */
  | { kind: "hang" }
  /** Send the first few SSE chunks, then destroy the socket. */
  | { kind: "reset_mid_stream" }
  /** Tool-call arguments that are broken JSON (the scripted calls', or one read_file call). */
  | { kind: "malformed_tool_json" }
  /**
   * An error inside a 200 stream after the first event, in the protocol's own form (chat: a
   * `data: {"error"}` chunk; Anthropic and Responses: an `error` event). `failedResponse` sends a
   * Responses `response.failed` event instead.
   */
  | { kind: "stream_error"; code?: string; message?: string; failedResponse?: boolean };

/** Which API a request spoke. */
export type Protocol = "openai" | "anthropic" | "responses";

export interface ScriptedTurn {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  /**
   * Wire numbers. OpenAI: input = prompt_tokens (includes cached), cacheRead = cached_tokens.
   * Anthropic: input = input_tokens (excludes cache), cacheRead/cacheWrite = cache read/creation.
   * Defaults: input ≈ request body chars / 4, output ≈ generated chars / 4, caches 0.
   */
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  fault?: Fault;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Split text/reasoning/arguments into chunks of this many chars (default 8). */
  chunkSize?: number;
  /** OpenAI vocabulary (stop, tool_calls, length); mapped to Anthropic's for /v1/messages. */
  finishReason?: string;
}

export interface RecordedRequest {
  protocol: Protocol;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON that tests poke into.
  body: any;
  stream: boolean;
  receivedAt: number;
  /** Prompt tokens counted with a real tokenizer (only with the `tokenizer` option; OpenAI chat only). */
  promptTokens?: number;
}

export interface FakeLlm {
  /** http://127.0.0.1:PORT */
  url: string;
  /** `${url}/v1` */
  openaiBaseUrl: string;
  /** `${url}` (the Anthropic SDK appends /v1/messages) */
  anthropicBaseUrl: string;
  /** Every chat/messages request, in arrival order. */
  requests: RecordedRequest[];
  enqueue(...turns: ScriptedTurn[]): void;
  /** Dynamic script: called when the queue is empty. */
  setResponder(fn: ((req: RecordedRequest) => ScriptedTurn) | undefined): void;
  /** Turns still queued. */
  pending(): number;
  /** Replaces the GET /v1/models answer (body and status); undefined restores the default list. */
  setModelList(body: unknown, status?: number): void;
  /** How many GET /v1/models requests arrived. */
  modelListRequests(): number;
  close(): Promise<void>;
}

const MALFORMED_DEFAULT: ScriptedToolCall = { name: "read_file", arguments: '{"path": "a.txt",' };

/** Starts the server on 127.0.0.1 (random port unless given). */
export async function startFakeLlm(
  options: {
    turns?: ScriptedTurn[];
    port?: number;
    /**
     * Optional: count chat-completions prompts with this tiktoken encoding (messages + tools, the way
     * OpenAI bills them) and report that as usage.prompt_tokens. Default: body length / 4.
     */
    tokenizer?: "cl100k_base" | "o200k_base";
  } = {},
): Promise<FakeLlm> {
  const queue: ScriptedTurn[] = [...(options.turns ?? [])];
  const countTokens = options.tokenizer ? await loadTokenCounter(options.tokenizer) : undefined;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let responder: ((req: RecordedRequest) => ScriptedTurn) | undefined;
  let counter = 0;
  let modelList: { body: unknown; status: number } | undefined;
  let modelListRequests = 0;

  const server = createServer((req, res) => {
    readBody(req)
      .then((raw) => handle(req, res, raw))
      .catch(() => res.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse, rawBody: string): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "GET" && path === "/v1/models") {
      modelListRequests++;
      if (modelList) return sendJson(res, modelList.status, modelList.body);
      sendJson(res, 200, {
        object: "list",
        data: [
          { id: "fake-model", object: "model", created: 0, owned_by: "fake-llm" },
          { id: "fake-model-large", object: "model", created: 0, owned_by: "fake-llm" },
        ],
      });
      return;
    }
    const routes: Record<string, Protocol> = {
      "/v1/chat/completions": "openai",
      "/v1/messages": "anthropic",
      "/v1/responses": "responses",
    };
    const protocol = routes[path];
    if (req.method !== "POST" || !protocol) {
      sendJson(res, 404, {
        error: { message: `fake-llm: no route ${req.method} ${path}`, type: "not_found" },
      });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const record: RecordedRequest = {
      protocol,
      method: req.method,
      path,
      headers: { ...req.headers },
      rawBody,
      body,
      stream: isRecord(body) && body.stream === true,
      receivedAt: Date.now(),
    };
    if (countTokens && protocol === "openai" && isRecord(body))
      record.promptTokens = countPromptTokens(body, countTokens);
    requests.push(record);
    counter++;

    let turn = queue.shift();
    if (!turn && responder) {
      try {
        turn = responder(record);
      } catch (err) {
        sendError(res, protocol, 500, `fake-llm: responder threw: ${String(err)}`);
        return;
      }
    }
    if (!turn) {
      sendError(res, protocol, 500, `fake-llm: script exhausted (no turn queued for request #${counter})`);
      return;
    }
    if (turn.delayMs) await sleep(turn.delayMs);
    if (turn.fault?.kind === "hang") return; // the socket stays open until the client gives up
    if (turn.fault?.kind === "http") {
      sendHttpFault(res, protocol, turn.fault);
      return;
    }
    const reply = resolveTurn(turn, rawBody);
    if (record.promptTokens !== undefined && turn.usage?.input === undefined)
      reply.input = record.promptTokens;
    const fields = isRecord(body) ? body : {};
    if (turn.fault?.kind === "stream_error") {
      streamError(res, protocol, turn.fault);
      return;
    }
    if (protocol === "openai") {
      if (record.stream) await streamOpenAI(res, reply, fields);
      else sendJson(res, 200, openAICompletion(reply));
    } else if (protocol === "responses") {
      if (record.stream) await streamResponses(res, reply, fields);
      else sendJson(res, 200, responsesObject(reply, fields));
    } else if (record.stream) await streamAnthropic(res, reply);
    else sendJson(res, 200, anthropicMessage(reply));
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    enqueue: (...turns) => {
      queue.push(...turns);
    },
    setResponder: (fn) => {
      responder = fn;
    },
    pending: () => queue.length,
    setModelList: (body, status = 200) => {
      modelList = body === undefined ? undefined : { body, status };
    },
    modelListRequests: () => modelListRequests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Turn resolution

interface ResolvedCall {
  id: string;
  name: string;
  args: string;
}

interface Reply {
  text: string;
  reasoning: string;
  calls: ResolvedCall[];
  finish: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  chunkSize: number;
  reset: boolean;
}

let idCounter = 0;
const nextId = (prefix: string) => `${prefix}${(++idCounter).toString(36).padStart(6, "0")}`;

/** Loaded on demand so the module keeps importing node built-ins only when no tokenizer is asked for. */
async function loadTokenCounter(encoding: "cl100k_base" | "o200k_base"): Promise<(text: string) => number> {
  const { getEncoding } = await import("js-tiktoken");
  const enc = getEncoding(encoding);
  return (text) => enc.encode(text).length;
}

/**
 * Prompt tokens of a chat-completions body as OpenAI counts them: 3 per message plus its fields'
 * tokens, 3 to prime the reply, and the tool definitions serialised.
 */
export function countPromptTokens(body: Record<string, unknown>, count: (text: string) => number): number {
  let n = 3;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const m of messages) {
    if (!isRecord(m)) continue;
    n += 3;
    for (const [key, value] of Object.entries(m)) {
      if (value === null || value === undefined) continue;
      if (key === "name") n += 1;
      n += count(typeof value === "string" ? value : JSON.stringify(value));
    }
  }
  if (Array.isArray(body.tools) && body.tools.length > 0) n += count(JSON.stringify(body.tools));
  return n;
}

function resolveTurn(turn: ScriptedTurn, rawBody: string): Reply {
  const malformed = turn.fault?.kind === "malformed_tool_json";
  const scripted = turn.toolCalls ?? (malformed ? [MALFORMED_DEFAULT] : []);
  const calls = scripted.map((c) => {
    let args = typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments);
    // Break valid JSON the way truncating local models do: drop the closing brace, leave a comma.
    if (malformed) args = args.replace(/}\s*$/, ",");
    return { id: c.id ?? nextId("call_"), name: c.name, args };
  });
  const text = turn.text ?? "";
  const reasoning = turn.reasoning ?? "";
  const generated = text.length + reasoning.length + calls.reduce((n, c) => n + c.args.length, 0);
  return {
    text,
    reasoning,
    calls,
    finish: turn.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop"),
    input: turn.usage?.input ?? Math.ceil(rawBody.length / 4),
    output: turn.usage?.output ?? Math.max(1, Math.ceil(generated / 4)),
    cacheRead: turn.usage?.cacheRead ?? 0,
    cacheWrite: turn.usage?.cacheWrite ?? 0,
    chunkSize: Math.max(1, turn.chunkSize ?? 8),
    reset: turn.fault?.kind === "reset_mid_stream",
  };
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// ---------------------------------------------------------------------------------------------
// OpenAI chat completions

async function streamOpenAI(res: ServerResponse, r: Reply, body: Record<string, unknown>): Promise<void> {
  const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
  const id = nextId("chatcmpl-");
  const model = typeof body.model === "string" ? body.model : "fake-model";
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const events: unknown[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of chunks(r.reasoning, r.chunkSize)) events.push(chunk({ reasoning_content: piece }));
  for (const piece of chunks(r.text, r.chunkSize)) events.push(chunk({ content: piece }));
  r.calls.forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const piece of chunks(call.args, r.chunkSize)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(chunk({}, r.finish));
  if (includeUsage) events.push({ ...chunk({}), choices: [], usage: openAIUsage(r) });

  startSse(res);
  if (r.reset) {
    await resetAfter(
      res,
      events.slice(0, 3).map((e) => `data: ${JSON.stringify(e)}\n\n`),
    );
    return;
  }
  for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
  res.end("data: [DONE]\n\n");
}

function openAIUsage(r: Reply) {
  return {
    prompt_tokens: r.input,
    completion_tokens: r.output,
    total_tokens: r.input + r.output,
    prompt_tokens_details: { cached_tokens: r.cacheRead, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: r.reasoning ? Math.ceil(r.reasoning.length / 4) : 0 },
  };
}

function openAICompletion(r: Reply) {
  const message: Record<string, unknown> = { role: "assistant", content: r.text || null, refusal: null };
  if (r.reasoning) message.reasoning_content = r.reasoning;
  if (r.calls.length > 0) {
    message.tool_calls = r.calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.args },
    }));
  }
  return {
    id: nextId("chatcmpl-"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "fake-model",
    choices: [{ index: 0, message, logprobs: null, finish_reason: r.finish }],
    usage: openAIUsage(r),
  };
}

// ---------------------------------------------------------------------------------------------
// Anthropic messages

const ANTHROPIC_STOP: Record<string, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
};

async function streamAnthropic(res: ServerResponse, r: Reply): Promise<void> {
  const events: [string, unknown][] = [];
  const add = (type: string, data: Record<string, unknown>) => events.push([type, { type, ...data }]);
  add("message_start", {
    message: {
      id: nextId("msg_"),
      type: "message",
      role: "assistant",
      model: "fake-model",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: r.input,
        cache_creation_input_tokens: r.cacheWrite,
        cache_read_input_tokens: r.cacheRead,
        output_tokens: 1,
      },
    },
  });
  events.push(["ping", { type: "ping" }]);
  let index = 0;
  const block = (start: Record<string, unknown>, deltas: Record<string, unknown>[]) => {
    add("content_block_start", { index, content_block: start });
    for (const delta of deltas) add("content_block_delta", { index, delta });
    add("content_block_stop", { index });
    index++;
  };
  if (r.reasoning) {
    block({ type: "thinking", thinking: "", signature: "" }, [
      ...chunks(r.reasoning, r.chunkSize).map((thinking) => ({ type: "thinking_delta", thinking })),
      {
        type: "signature_delta",
        signature: `sig-${Buffer.from(r.reasoning).toString("base64").slice(0, 16)}`,
      },
    ]);
  }
  if (r.text) {
    block(
      { type: "text", text: "" },
      chunks(r.text, r.chunkSize).map((text) => ({ type: "text_delta", text })),
    );
  }
  for (const call of r.calls) {
    block(
      { type: "tool_use", id: call.id.replace(/^call_/, "toolu_"), name: call.name, input: {} },
      chunks(call.args, r.chunkSize).map((partial_json) => ({ type: "input_json_delta", partial_json })),
    );
  }
  add("message_delta", {
    delta: { stop_reason: ANTHROPIC_STOP[r.finish] ?? r.finish, stop_sequence: null },
    usage: { output_tokens: r.output },
  });
  add("message_stop", {});

  const frame = ([type, data]: [string, unknown]) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  startSse(res);
  if (r.reset) {
    await resetAfter(res, events.slice(0, 4).map(frame));
    return;
  }
  for (const e of events) res.write(frame(e));
  res.end();
}

function anthropicMessage(r: Reply) {
  const content: Record<string, unknown>[] = [];
  if (r.reasoning) content.push({ type: "thinking", thinking: r.reasoning, signature: "sig-fake" });
  if (r.text) content.push({ type: "text", text: r.text, citations: null });
  for (const c of r.calls) {
    let input: unknown;
    try {
      input = JSON.parse(c.args);
    } catch {
      input = {}; // the non-streamed format has no way to carry broken JSON
    }
    content.push({ type: "tool_use", id: c.id.replace(/^call_/, "toolu_"), name: c.name, input });
  }
  return {
    id: nextId("msg_"),
    type: "message",
    role: "assistant",
    model: "fake-model",
    content,
    stop_reason: ANTHROPIC_STOP[r.finish] ?? r.finish,
    stop_sequence: null,
    usage: {
      input_tokens: r.input,
      output_tokens: r.output,
      cache_creation_input_tokens: r.cacheWrite,
      cache_read_input_tokens: r.cacheRead,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

function responsesUsage(r: Reply) {
  return {
    input_tokens: r.input,
    input_tokens_details: { cached_tokens: r.cacheRead },
    output_tokens: r.output,
    output_tokens_details: { reasoning_tokens: r.reasoning ? Math.ceil(r.reasoning.length / 4) : 0 },
    total_tokens: r.input + r.output,
  };
}

/** The finished output items; reasoning carries encrypted content only when the request asked. */
function responsesOutput(r: Reply, body: Record<string, unknown>): Record<string, unknown>[] {
  const encrypted = Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content");
  const out: Record<string, unknown>[] = [];
  if (r.reasoning) {
    out.push({
      type: "reasoning",
      id: nextId("rs_"),
      summary: [{ type: "summary_text", text: r.reasoning }],
      ...(encrypted ? { encrypted_content: `enc-${Buffer.from(r.reasoning).toString("base64")}` } : {}),
    });
  }
  if (r.text) {
    out.push({
      type: "message",
      id: nextId("msg_"),
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: r.text, annotations: [], logprobs: [] }],
    });
  }
  for (const c of r.calls) {
    out.push({
      type: "function_call",
      id: nextId("fc_"),
      call_id: c.id,
      name: c.name,
      arguments: c.args,
      status: "completed",
    });
  }
  return out;
}

function responsesObject(r: Reply, body: Record<string, unknown>, output = responsesOutput(r, body)) {
  const incomplete = r.finish === "length";
  return {
    id: nextId("resp_"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: incomplete ? "incomplete" : "completed",
    model: typeof body.model === "string" ? body.model : "fake-model",
    output,
    error: null,
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    store: body.store ?? true,
    usage: responsesUsage(r),
  };
}

/** The real event sequence: created, per item added → deltas → done, then completed/incomplete. */
async function streamResponses(res: ServerResponse, r: Reply, body: Record<string, unknown>): Promise<void> {
  const final = responsesObject(r, body);
  const frames: string[] = [];
  let seq = 0;
  const add = (type: string, data: Record<string, unknown>) =>
    frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const pending = { ...final, status: "in_progress", output: [], usage: null, incomplete_details: null };
  add("response.created", { response: pending });
  add("response.in_progress", { response: pending });
  final.output.forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === "reasoning") {
      add("response.output_item.added", {
        output_index,
        item: { ...item, summary: [], encrypted_content: undefined },
      });
      add("response.reasoning_summary_part.added", {
        item_id,
        output_index,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      });
      for (const delta of chunks(r.reasoning, r.chunkSize))
        add("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta });
      add("response.reasoning_summary_text.done", {
        item_id,
        output_index,
        summary_index: 0,
        text: r.reasoning,
      });
    } else if (item.type === "message") {
      add("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      add("response.content_part.added", {
        item_id,
        output_index,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
      for (const delta of chunks(r.text, r.chunkSize))
        add("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
      add("response.output_text.done", {
        item_id,
        output_index,
        content_index: 0,
        text: r.text,
        logprobs: [],
      });
    } else {
      const args = String(item.arguments);
      add("response.output_item.added", {
        output_index,
        item: { ...item, arguments: "", status: "in_progress" },
      });
      for (const delta of chunks(args, r.chunkSize))
        add("response.function_call_arguments.delta", { item_id, output_index, delta });
      add("response.function_call_arguments.done", { item_id, output_index, arguments: args });
    }
    add("response.output_item.done", { output_index, item });
  });
  add(final.status === "incomplete" ? "response.incomplete" : "response.completed", { response: final });

  startSse(res);
  if (r.reset) {
    // Far enough in for the first deltas to arrive.
    await resetAfter(res, frames.slice(0, 6));
    return;
  }
  for (const f of frames) res.write(f);
  res.end();
}

/** A 200 stream that fails after its first event, in each protocol's own error form. */
function streamError(
  res: ServerResponse,
  protocol: Protocol,
  fault: Extract<Fault, { kind: "stream_error" }>,
) {
  const code = fault.code ?? "server_error";
  const message = fault.message ?? "The server had an error while processing your request.";
  startSse(res);
  if (protocol === "openai") {
    const first = {
      id: nextId("chatcmpl-"),
      object: "chat.completion.chunk",
      created: 0,
      model: "fake-model",
    };
    res.write(
      `data: ${JSON.stringify({ ...first, choices: [{ index: 0, delta: { role: "assistant" } }] })}\n\n`,
    );
    res.end(`data: ${JSON.stringify({ error: { message, type: code, code } })}\n\n`);
  } else if (protocol === "anthropic") {
    const start = {
      type: "message_start",
      message: {
        id: nextId("msg_"),
        type: "message",
        role: "assistant",
        content: [],
        model: "fake-model",
        stop_reason: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    };
    res.write(`event: message_start\ndata: ${JSON.stringify(start)}\n\n`);
    res.end(`event: error\ndata: ${JSON.stringify({ type: "error", error: { type: code, message } })}\n\n`);
  } else {
    const response = {
      id: nextId("resp_"),
      object: "response",
      status: "in_progress",
      output: [],
      error: null,
    };
    res.write(
      `event: response.created\ndata: ${JSON.stringify({ type: "response.created", sequence_number: 0, response })}\n\n`,
    );
    const failed = { ...response, status: "failed", error: { code, message } };
    res.end(
      fault.failedResponse
        ? `event: response.failed\ndata: ${JSON.stringify({ type: "response.failed", sequence_number: 1, response: failed })}\n\n`
        : `event: error\ndata: ${JSON.stringify({ type: "error", sequence_number: 1, code, message, param: null })}\n\n`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Errors and plumbing

const OPENAI_ERROR: Record<number, [string, string | null]> = {
  400: ["invalid_request_error", null],
  401: ["invalid_request_error", "invalid_api_key"],
  402: ["insufficient_quota", "insufficient_quota"],
  403: ["permission_denied", null],
  404: ["invalid_request_error", "model_not_found"],
  413: ["invalid_request_error", "request_too_large"],
  429: ["rate_limit_exceeded", "rate_limit_exceeded"],
};
const ANTHROPIC_ERROR: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};
const DEFAULT_MESSAGES: Record<number, string> = {
  400: "Invalid request.",
  401: "Invalid API key provided.",
  402: "Your credit balance is too low.",
  403: "Permission denied.",
  404: "The model `fake-model` does not exist.",
  413: "Request exceeds the maximum allowed size.",
  429: "Rate limit reached. Please try again in 1s.",
  500: "The server had an error while processing your request.",
  503: "The server is overloaded.",
  529: "Overloaded",
};

/** The vendor's real error body for `status` with `message`. */
function errorBody(protocol: Protocol, status: number, message: string): unknown {
  if (protocol === "anthropic") {
    return { type: "error", error: { type: ANTHROPIC_ERROR[status] ?? "api_error", message } };
  }
  const [type, code] = OPENAI_ERROR[status] ?? ["server_error", null];
  return { error: { message, type, param: null, code } };
}

function sendError(res: ServerResponse, protocol: Protocol, status: number, message: string): void {
  sendJson(res, status, errorBody(protocol, status, message));
}

function sendHttpFault(res: ServerResponse, protocol: Protocol, fault: Extract<Fault, { kind: "http" }>) {
  const headers: Record<string, string> =
    fault.headers ?? (fault.status === 429 ? { "retry-after": "1" } : {});
  const message = DEFAULT_MESSAGES[fault.status] ?? `HTTP ${fault.status}`;
  const body = fault.body === undefined ? errorBody(protocol, fault.status, message) : fault.body;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const type = typeof body === "string" ? "text/plain" : "application/json";
  res.writeHead(fault.status, { "content-type": type, ...headers });
  res.end(text);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  res.flushHeaders();
}

/** Writes `frames`, lets them reach the client, then kills the connection without finishing. */
async function resetAfter(res: ServerResponse, frames: string[]): Promise<void> {
  for (const f of frames) res.write(f);
  await sleep(30);
  res.socket?.destroy();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
