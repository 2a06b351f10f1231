import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayAuth } from "../../src/gateway/auth/authorize.js";
import { gatewayLedger } from "../../src/gateway/ledger.js";
import {
  createWebhookAdapter,
  renderPrompt,
  type WebhookAdapter,
} from "../../src/gateway/platforms/webhook/index.js";
import { GatewayRunner } from "../../src/gateway/runner.js";
import { type InboundMessage, PlatformSendError } from "../../src/gateway/types.js";
import { useRuntime } from "../runtime/support.js";
import { closedPort } from "../support/closed-port.js";
import { toolMessagesOf } from "../support/e2e.js";

const SECRET = "s3cret-for-tests";

const hmac = (secret: string, body: string): string =>
  createHmac("sha256", secret).update(body).digest("hex");

interface Started {
  adapter: WebhookAdapter;
  received: InboundMessage[];
  logs: string[];
  post(route: string, body: string, headers?: Record<string, string>): Promise<Response>;
}

const running: Array<() => Promise<void>> = [];
const stopAll = async (): Promise<void> => {
  for (const stop of running.splice(0).reverse()) await stop();
};
afterEach(stopAll);

async function startWebhook(
  settings: Record<string, unknown>,
  env: NodeJS.ProcessEnv = {},
): Promise<Started> {
  const logs: string[] = [];
  const adapter = await createWebhookAdapter({
    settings: { host: "127.0.0.1", port: 0, rate_limit: 30, max_body_bytes: 1024 * 1024, ...settings },
    env,
    downloadDir: "/nonexistent",
    maxInboundBytes: 1024,
    log: (level, message) => logs.push(`${level}: ${message}`),
  });
  const received: InboundMessage[] = [];
  await adapter.start(async (m) => {
    received.push(m);
    return { status: "accepted" };
  });
  running.push(() => adapter.stop());
  const post = (route: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${adapter.port}/webhooks/${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
  return { adapter, received, logs, post };
}

const signed = (body: string, secret = SECRET): Record<string, string> => ({
  "x-hub-signature-256": `sha256=${hmac(secret, body)}`,
});

/** A local HTTP server standing in for a route's callback URL. */
async function startCallback(status = 200): Promise<{
  url: string;
  calls: Array<{ headers: IncomingHttpHeaders; body: string }>;
  setStatus(s: number): void;
}> {
  const calls: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  let current = status;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      calls.push({ headers: req.headers, body });
      res.writeHead(current, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  running.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, calls, setStatus: (s) => (current = s) };
}

const github = {
  secret: SECRET,
  prompt: "{{action}} on {{repository.full_name}}: {{issue.title}} by {{issue.user.login}}{{missing.field}}",
};

describe("webhook adapter: requests", () => {
  it("refuses a missing or bad signature with 401 and passes nothing on", async () => {
    const w = await startWebhook({ routes: { github } });
    const body = JSON.stringify({ action: "opened" });
    expect((await w.post("github", body)).status).toBe(401);
    expect((await w.post("github", body, signed(body, "wrong-secret"))).status).toBe(401);
    expect((await w.post("github", body, { "x-hub-signature-256": "sha256=zz" })).status).toBe(401);
    expect((await w.post("github", body, { "x-hermes-signature": hmac(SECRET, `${body} `) })).status).toBe(
      401,
    );
    expect(w.received).toEqual([]);
  });

  it("accepts a GitHub-signed payload with 202 and hands the rendered prompt to the gateway", async () => {
    const w = await startWebhook({ routes: { github } });
    const body = JSON.stringify({
      action: "opened",
      repository: { full_name: "acme/app" },
      issue: { title: "Crash on start", user: { login: "dev1" } },
    });
    const res = await w.post("github", body, {
      ...signed(body),
      "x-github-event": "issues",
      "x-github-delivery": "d-123",
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ status: "accepted", request_id: "d-123" });
    expect(w.received).toHaveLength(1);
    expect(w.received[0]).toMatchObject({
      platform: "webhook",
      chatType: "dm",
      chatId: "github",
      userId: "webhook:github",
      updateId: expect.stringMatching(/^github:sha256-[0-9a-f]{32}$/),
      messageId: "d-123",
      text: "opened on acme/app: Crash on start by dev1",
    });
  });

  it("accepts X-Hermes-Signature and the platform-wide secret; without a template the payload is pretty-printed", async () => {
    const w = await startWebhook({ secret: "platform-secret", routes: { alerts: {} } });
    const body = JSON.stringify({ level: "high", nested: { n: 1 } });
    const res = await w.post("alerts", body, { "x-hermes-signature": hmac("platform-secret", body) });
    expect(res.status).toBe(202);
    expect(w.received[0]?.text).toBe(JSON.stringify({ level: "high", nested: { n: 1 } }, null, 2));
  });

  it("takes the platform secret from WEBHOOK_SECRET when config has none", async () => {
    const w = await startWebhook({ routes: { alerts: {} } }, { WEBHOOK_SECRET: "from-env" });
    const body = "{}";
    expect((await w.post("alerts", body, { "x-hermes-signature": hmac("from-env", body) })).status).toBe(202);
  });

  it("refuses every request to a route without a secret (403) and logs why", async () => {
    const w = await startWebhook({ routes: { open: { prompt: "x" } } });
    const body = "{}";
    const res = await w.post("open", body, { "x-hermes-signature": hmac("", body) });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "this route has no secret configured" });
    expect(w.logs.some((l) => l.startsWith("error:") && l.includes("'open' has no secret"))).toBe(true);
    expect(w.received).toEqual([]);
  });

  it("answers 404 for unknown routes and paths, 405 for other methods", async () => {
    const w = await startWebhook({ routes: { github } });
    const body = "{}";
    expect((await w.post("nope", body, signed(body))).status).toBe(404);
    const base = `http://127.0.0.1:${w.adapter.port}`;
    expect((await fetch(`${base}/other`, { method: "POST", body })).status).toBe(404);
    expect((await fetch(`${base}/webhooks/github`)).status).toBe(405);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });

  it("answers 400 for a signed body that is not JSON", async () => {
    const w = await startWebhook({ routes: { github } });
    const body = "not json {";
    const res = await w.post("github", body, signed(body));
    expect(res.status).toBe(400);
    expect(w.received).toEqual([]);
  });

  it("refuses bodies over max_body_bytes with 413, declared or streamed", async () => {
    const w = await startWebhook({ max_body_bytes: 64, routes: { github } });
    const big = JSON.stringify({ pad: "x".repeat(200) });
    expect((await w.post("github", big, signed(big))).status).toBe(413);
    // Streamed without a Content-Length: the limit is enforced while reading.
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big.slice(0, 50)));
        controller.enqueue(new TextEncoder().encode(big.slice(50)));
        controller.close();
      },
    });
    const res = await fetch(`http://127.0.0.1:${w.adapter.port}/webhooks/github`, {
      method: "POST",
      headers: signed(big),
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    const small = JSON.stringify({ ok: 1 });
    expect((await w.post("github", small, signed(small))).status).toBe(202);
    expect(w.received).toHaveLength(1);
  });

  it("limits each route to rate_limit signed requests per minute (429 with Retry-After)", async () => {
    const w = await startWebhook({ rate_limit: 2, routes: { github, other: { secret: SECRET } } });
    const bodies = ['{"n":1}', '{"n":2}', '{"n":3}'];
    expect((await w.post("github", bodies[0]!, signed(bodies[0]!))).status).toBe(202);
    // Unsigned requests do not use up the route's allowance.
    expect((await w.post("github", bodies[1]!)).status).toBe(401);
    expect((await w.post("github", bodies[1]!, signed(bodies[1]!))).status).toBe(202);
    const limited = await w.post("github", bodies[2]!, signed(bodies[2]!));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another route has its own allowance.
    expect((await w.post("other", bodies[2]!, signed(bodies[2]!))).status).toBe(202);
    expect(w.received).toHaveLength(3);
  });

  it("passes a retried delivery on once: by delivery id, or by the body's hash", async () => {
    const w = await startWebhook({ routes: { github } });
    const body = '{"a":1}';
    const headers = { ...signed(body), "x-request-id": "r-1" };
    expect((await w.post("github", body, headers)).status).toBe(202);
    const again = await w.post("github", body, headers);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ status: "duplicate", request_id: "r-1" });
    // The same signed body without a delivery id (or under another one) is the same delivery.
    const bare = await w.post("github", body, signed(body));
    expect(bare.status).toBe(200);
    expect(await bare.json()).toEqual({ status: "duplicate", request_id: expect.stringMatching(/^sha256-/) });
    const other = '{"a":2}';
    expect((await w.post("github", other, signed(other))).status).toBe(202);
    expect(w.received.map((m) => m.updateId)).toEqual([
      expect.stringMatching(/^github:sha256-[0-9a-f]{32}$/),
      expect.stringMatching(/^github:sha256-[0-9a-f]{32}$/),
    ]);
    expect(w.received[0]?.updateId).not.toBe(w.received[1]?.updateId);
    expect(w.received.map((m) => m.messageId)).toEqual(["r-1", expect.stringMatching(/^sha256-/)]);
  });

  it("never lets payload text act as a gateway command", async () => {
    const w = await startWebhook({ routes: { github: { secret: SECRET, prompt: "{{title}}" } } });
    const body = JSON.stringify({ title: "/new please" });
    expect((await w.post("github", body, signed(body))).status).toBe(202);
    expect(w.received[0]?.text).toBe("Webhook payload:\n/new please");
  });

  it("ignores events a route does not take (200, nothing passed on)", async () => {
    const w = await startWebhook({ routes: { github: { ...github, events: ["issues"] } } });
    const body = '{"zen":"hi"}';
    const ping = await w.post("github", body, { ...signed(body), "x-github-event": "ping" });
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ status: "ignored", event: "ping" });
    expect((await w.post("github", body, { ...signed(body), "x-event-type": "issues" })).status).toBe(202);
    expect(w.received).toHaveLength(1);
  });

  it("refuses malformed route settings with the key in the message", async () => {
    const make = (routes: unknown) =>
      createWebhookAdapter({
        settings: { routes },
        env: {},
        downloadDir: "/x",
        maxInboundBytes: 1,
        log: () => {},
      });
    await expect(make({ bad: { deliver: { url: "ftp://x" } } })).rejects.toThrow(
      "platforms.webhook.routes.bad.deliver.url must be http(s)",
    );
    await expect(make({ "a/b": {} })).rejects.toThrow(/routes\.a\/b: route names/);
    await expect(make({ r: { events: [1] } })).rejects.toThrow(/routes\.r\.events/);
    await expect(make("nope")).rejects.toThrow(/must be a mapping/);
  });
});

describe("webhook adapter: answers", () => {
  it("POSTs the answer to deliver.url as JSON, with the route's headers and a signature", async () => {
    const cb = await startCallback();
    const w = await startWebhook({
      routes: { github: { ...github, deliver: { url: cb.url, headers: { authorization: "Bearer abc" } } } },
    });
    const sent = await w.adapter.send({ chatId: "github", replyTo: "d-9" }, "The answer.");
    expect(sent.messageId).toBeTruthy();
    expect(cb.calls).toHaveLength(1);
    const call = cb.calls[0]!;
    expect(JSON.parse(call.body)).toEqual({
      route: "github",
      text: "The answer.",
      session_key: "agent:main:webhook:dm:github",
      request_id: "d-9",
    });
    expect(call.headers.authorization).toBe("Bearer abc");
    expect(call.headers["content-type"]).toBe("application/json");
    expect(call.headers["x-hermes-signature"]).toBe(hmac(SECRET, call.body));
  });

  it("reports callback failures as PlatformSendError, retryable for 5xx, 429 and network errors", async () => {
    const cb = await startCallback(500);
    const dead = `http://127.0.0.1:${await closedPort()}/hook`;
    const w = await startWebhook({
      routes: { up: { secret: SECRET, deliver: { url: cb.url } }, down: { secret: SECRET, deliver: dead } },
    });
    const failure = async (route: string): Promise<PlatformSendError> => {
      try {
        await w.adapter.send({ chatId: route }, "x");
      } catch (err) {
        if (err instanceof PlatformSendError) return err;
        throw err;
      }
      throw new Error("expected a failure");
    };
    expect((await failure("up")).retryable).toBe(true);
    cb.setStatus(429);
    expect((await failure("up")).retryable).toBe(true);
    cb.setStatus(404);
    const notFound = await failure("up");
    expect(notFound.retryable).toBe(false);
    expect(notFound.message).toMatch(/HTTP 404/);
    expect((await failure("down")).retryable).toBe(true);
    expect((await failure("no-such-route")).retryable).toBe(false);
  });

  it("cannot edit: streaming into a webhook is pointless", async () => {
    const w = await startWebhook({ routes: { github } });
    expect(w.adapter.minEditIntervalMs).toBeGreaterThanOrEqual(3_600_000);
    await expect(w.adapter.edit({ chatId: "github" }, "m", "t")).rejects.toBeInstanceOf(PlatformSendError);
  });

  it("logs and keeps going when a route has nowhere to deliver", async () => {
    const w = await startWebhook({ routes: { github } });
    await expect(w.adapter.send({ chatId: "github" }, "x")).resolves.toHaveProperty("messageId");
    expect(w.logs.some((l) => l.includes("has no deliver.url"))).toBe(true);
  });

  it("stops listening on stop()", async () => {
    const w = await startWebhook({ routes: { github } });
    const port = w.adapter.port;
    await w.adapter.stop();
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });
});

describe("renderPrompt", () => {
  it("fills nested fields and list items, objects as JSON, missing as empty", () => {
    const payload = { a: { b: [{ c: "x" }] }, n: 3, o: { k: true }, nil: null };
    expect(renderPrompt("{{a.b.0.c}} {{ n }} {{o}} [{{nil}}] [{{zz.y}}]", payload)).toBe(
      'x 3 {"k":true} [] []',
    );
  });
});

/** Polls until `check` holds (the gateway works in the background). */
async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("webhook through the gateway", () => {
  const harness = useRuntime();
  // Registered after the runtime's own: the gateway drains before the runtime is disposed.
  afterEach(stopAll);

  it("runs the payload as a turn with the restricted tools and POSTs the answer to the callback", async () => {
    const cb = await startCallback();
    const { runtime, box } = harness.start("", { platform: "gateway" });
    const marker = join(box.work, "webhook-ran-a-command");
    const answer =
      "Issue #7 looks like a crash in the start-up path; I would look at the config loader first.";
    harness.fake.enqueue(
      { toolCalls: [{ name: "terminal", arguments: { command: `touch ${marker}` } }] },
      { text: answer },
    );
    const adapter = await createWebhookAdapter({
      settings: {
        host: "127.0.0.1",
        port: 0,
        routes: { github: { ...github, deliver: { url: cb.url } } },
      },
      env: {},
      downloadDir: join(box.home, "cache"),
      maxInboundBytes: 1024,
      log: () => {},
    });
    const ledger = gatewayLedger(runtime.sessions!);
    const auth = new GatewayAuth({ pairing: runtime.sessions!.pairing, config: runtime.config, env: {} });
    const runner = new GatewayRunner({ runtime, adapters: [adapter], ledger, auth, workDir: box.work });
    await runner.start();
    running.push(async () => {
      await runner.drain(5_000);
    });

    const body = JSON.stringify({
      action: "opened",
      repository: { full_name: "acme/app" },
      issue: { title: "Crash on start", user: { login: "dev1" } },
    });
    const res = await fetch(`http://127.0.0.1:${adapter.port}/webhooks/github`, {
      method: "POST",
      headers: { ...signed(body), "x-github-delivery": "gh-42", "x-github-event": "issues" },
      body,
    });
    expect(res.status).toBe(202);
    await until(() => cb.calls.length > 0, "the callback");
    // Give a stray second callback (a streamed preview, a duplicate) the chance to show up.
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(cb.calls.map((c) => JSON.parse(c.body))).toEqual([
      { route: "github", text: answer, session_key: "agent:main:webhook:dm:github", request_id: "gh-42" },
    ]);
    const first = harness.fake.requests[0]!;
    const userText = JSON.stringify(first.body.messages);
    expect(userText).toContain("opened on acme/app: Crash on start by dev1");
    const tools = ((first.body.tools ?? []) as Array<{ function: { name: string } }>).map(
      (t) => t.function.name,
    );
    expect(tools.sort()).toEqual(["vision_analyze", "web_extract", "web_search"]);
    // The model asked for the terminal anyway: it was refused and nothing ran.
    const toolResults = toolMessagesOf(harness.fake.requests[1]!);
    expect(toolResults).toHaveLength(1);
    expect(String(toolResults[0]!.content)).toMatch(/'terminal' is not available here/);
    expect(existsSync(marker)).toBe(false);
  });
});
