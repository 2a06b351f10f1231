import { createHash, createHmac } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayAuth } from "../../src/gateway/auth/authorize.js";
import { type DeliveryLedger, gatewayLedger } from "../../src/gateway/ledger.js";
import { createWebhookAdapter, type WebhookAdapter } from "../../src/gateway/platforms/webhook/index.js";
import { GatewayRunner } from "../../src/gateway/runner.js";
import { type OutboundTarget, PlatformSendError } from "../../src/gateway/types.js";
import { lastUser, type TestRuntime, useRuntime } from "../runtime/support.js";
import { MemoryAdapter } from "./support/memory-adapter.js";

const SECRET = "route-secret";
const sign = (body: string): Record<string, string> => ({
  "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`,
});

/** A chat platform that refuses every message for good (a chat the bot was removed from). */
class RefusingAdapter extends MemoryAdapter {
  override async send(_target: OutboundTarget, _text: string): Promise<{ messageId: string }> {
    throw new PlatformSendError("Forbidden: bot was kicked from the group chat", false);
  }
}

const stops: Array<() => Promise<void>> = [];
const harness = useRuntime();
// Registered after the runtime's own: the gateway drains before the runtime is disposed.
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

interface Gateway {
  t: TestRuntime;
  webhook: WebhookAdapter;
  chat: MemoryAdapter;
  ledger: DeliveryLedger;
  logs: string[];
  post(route: string, body: string, headers?: Record<string, string>): Promise<Response>;
  /** Drains this gateway and starts another on the same state (a restart). */
  restart(): Promise<Gateway>;
}

async function startGateway(routes: Record<string, unknown>, t?: TestRuntime): Promise<Gateway> {
  const rt = t ?? harness.start("", { platform: "gateway" });
  const logs: string[] = [];
  const webhook = await createWebhookAdapter({
    settings: { host: "127.0.0.1", port: 0, rate_limit: 3, routes },
    env: {},
    downloadDir: join(rt.box.home, "cache"),
    maxInboundBytes: 1024,
    log: (level, message) => logs.push(`${level}: ${message}`),
  });
  const chat = new MemoryAdapter("memchat");
  const ledger = gatewayLedger(rt.runtime.sessions!);
  const auth = new GatewayAuth({ pairing: rt.runtime.sessions!.pairing, config: rt.runtime.config, env: {} });
  const runner = new GatewayRunner({
    runtime: rt.runtime,
    adapters: [webhook, chat, new RefusingAdapter("closedchat")],
    ledger,
    auth,
    workDir: rt.box.work,
  });
  await runner.start();
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await runner.drain(5_000);
  };
  stops.push(stop);
  const post = (route: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${webhook.port}/webhooks/${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
  return {
    t: rt,
    webhook,
    chat,
    ledger,
    logs,
    post,
    restart: async () => {
      await stop();
      return startGateway(routes, rt);
    },
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A local HTTP server standing in for a callback URL, answering `status`. */
async function callback(status: number): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      bodies.push(body);
      res.writeHead(status).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stops.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
}

const alert = { secret: SECRET, prompt: "ALERT {{level}}: {{text}}" };
const payload = JSON.stringify({ level: "high", text: "disk full on db1" });

describe("webhook routes delivering to another platform's chat", () => {
  it("sends the turn's answer to deliver_extra's chat and thread, once, also when the delivery is posted again", async () => {
    const routes = {
      alerts: { ...alert, deliver: "memchat", deliver_extra: { chat_id: "c-42", thread_id: 7 } },
    };
    const gw = await startGateway(routes);
    harness.fake.enqueue({ text: "db1 is out of disk: clear /var/log first." });
    const headers = { ...sign(payload), "x-github-delivery": "d-1" };
    expect((await gw.post("alerts", payload, headers)).status).toBe(202);
    expect((await gw.post("alerts", payload, headers)).status).toBe(200);
    await gw.chat.waitForText("clear /var/log first");
    expect(lastUser(harness.fake.requests[0]!)).toContain("ALERT high: disk full on db1");
    // A new gateway does not remember the id in memory: the ledger does.
    const again = await gw.restart();
    const repost = await again.post("alerts", payload, headers);
    expect(repost.status).toBe(200);
    expect(await repost.json()).toEqual({ status: "duplicate", request_id: "d-1" });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(harness.fake.requests).toHaveLength(1);
    expect(gw.chat.messages.map((m) => [m.target, m.text])).toEqual([
      [{ chatId: "c-42", threadId: "7" }, "db1 is out of disk: clear /var/log first."],
    ]);
    expect(again.chat.messages).toEqual([]);
    const contentId = `sha256-${createHash("sha256").update(payload).digest("hex").slice(0, 32)}`;
    expect(again.ledger.outbound(`webhook:alerts:${contentId}:answer`)?.platform).toBe("memchat");
  });
});

describe("deliver_only routes", () => {
  it("delivers the rendered template to a chat without asking the model (200), once per delivery", async () => {
    const gw = await startGateway({
      alerts: { ...alert, deliver: "memchat", deliver_extra: { chat_id: "ops" }, deliver_only: true },
    });
    const headers = { ...sign(payload), "x-request-id": "r-1" };
    const res = await gw.post("alerts", payload, headers);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "delivered", request_id: "r-1" });
    expect(gw.chat.messages.map((m) => [m.target.chatId, m.text])).toEqual([
      ["ops", "ALERT high: disk full on db1"],
    ]);
    const retry = await gw.post("alerts", payload, headers);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ status: "delivered", request_id: "r-1", duplicate: true });
    expect(gw.chat.messages).toHaveLength(1);
    expect(harness.fake.requests).toHaveLength(0);
  });

  it("POSTs the rendered template to deliver.url, and answers 502 with the reason when the target refuses", async () => {
    const ok = await callback(200);
    const refusing = await callback(404);
    const gw = await startGateway({
      hook: { ...alert, deliver: { url: ok.url }, deliver_only: true },
      gone: { ...alert, deliver: { url: refusing.url }, deliver_only: true },
      kicked: { ...alert, deliver: "closedchat", deliver_extra: { chat_id: "g1" }, deliver_only: true },
    });
    expect((await gw.post("hook", payload, sign(payload))).status).toBe(200);
    expect(ok.bodies.map((b) => JSON.parse(b).text)).toEqual(["ALERT high: disk full on db1"]);
    const gone = await gw.post("gone", payload, sign(payload));
    expect(gone.status).toBe(502);
    expect(((await gone.json()) as { error: string }).error).toMatch(/HTTP 404/);
    const kicked = await gw.post("kicked", payload, sign(payload));
    expect(kicked.status).toBe(502);
    expect(((await kicked.json()) as { error: string }).error).toMatch(/bot was kicked/);
    expect(harness.fake.requests).toHaveLength(0);
  });

  it("still checks the signature and the rate limit", async () => {
    const gw = await startGateway({
      alerts: { ...alert, deliver: "memchat", deliver_extra: { chat_id: "ops" }, deliver_only: true },
    });
    expect((await gw.post("alerts", payload)).status).toBe(401);
    const bodies = [1, 2, 3, 4].map((n) => JSON.stringify({ level: n, text: "x" }));
    const statuses: number[] = [];
    for (const b of bodies) statuses.push((await gw.post("alerts", b, sign(b))).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(gw.chat.texts()).toEqual(["ALERT 1: x", "ALERT 2: x", "ALERT 3: x"]);
  });
});

describe("webhook routes with skills", () => {
  it("runs each turn with the route's skills loaded", async () => {
    const t = harness.start("", { platform: "gateway" });
    const dir = join(t.box.home, "skills", "triage");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "SKILL.md"),
      "---\nname: triage\ndescription: Triage alerts.\n---\n\n# triage\n\nRank the alert P1-P4 and name an owner.\n",
    );
    const cb = await callback(200);
    const gw = await startGateway({ alerts: { ...alert, skills: ["triage"], deliver: { url: cb.url } } }, t);
    harness.fake.enqueue({ text: "P1, owner: storage team" });
    expect((await gw.post("alerts", payload, sign(payload))).status).toBe(202);
    await until(() => cb.bodies.length > 0, "the callback");
    const user = lastUser(harness.fake.requests[0]!);
    expect(user).toContain("Rank the alert P1-P4 and name an owner.");
    expect(user).toContain('The skill "triage" is loaded');
    expect(user).toContain("ALERT high: disk full on db1");
    expect(JSON.parse(cb.bodies[0]!).text).toBe("P1, owner: storage team");
  });
});

describe("webhook route settings", () => {
  it("refuses routes whose target or skills this gateway lacks, logging why; the other routes run", async () => {
    const gw = await startGateway({
      tg: { ...alert, deliver: "telegram", deliver_extra: { chat_id: "123" } },
      nochat: { ...alert, deliver: "memchat" },
      noskill: { ...alert, skills: ["no-such-skill"] },
      nowhere: { ...alert, deliver_only: true },
      self: { ...alert, deliver: "webhook", deliver_extra: { chat_id: "x" } },
      fine: { ...alert, deliver: "memchat", deliver_extra: { chat_id: "ops" }, deliver_only: true },
    });
    const errors = gw.logs.filter((l) => l.startsWith("error:"));
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /'tg' is refused: deliver: telegram is not a platform running in this gateway \(running: webhook, memchat, closedchat\)/,
        ),
        expect.stringMatching(/'nochat' is refused: deliver: memchat needs deliver_extra\.chat_id/),
        expect.stringMatching(/'noskill' is refused: skills: Skill 'no-such-skill' not found/),
        expect.stringMatching(
          /'nowhere' is refused: deliver_only is set but the route has no deliver target/,
        ),
        expect.stringMatching(/'self' is refused: deliver: webhook would hand the answer back/),
      ]),
    );
    for (const route of ["tg", "nochat", "noskill", "nowhere", "self"]) {
      const res = await gw.post(route, payload, sign(payload));
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        error: "this route is refused by a configuration error (see the gateway log)",
      });
    }
    expect((await gw.post("fine", payload, sign(payload))).status).toBe(200);
    expect(gw.chat.texts()).toEqual(["ALERT high: disk full on db1"]);
    expect(harness.fake.requests).toHaveLength(0);
  });

  it("refuses a platform target outside a gateway, and malformed keys with the key in the message", async () => {
    const logs: string[] = [];
    const make = (routes: unknown) =>
      createWebhookAdapter({
        settings: { host: "127.0.0.1", port: 0, routes },
        env: {},
        downloadDir: "/x",
        maxInboundBytes: 1,
        log: (level, message) => logs.push(`${level}: ${message}`),
      });
    const alone = await make({ r: { ...alert, deliver: "memchat", deliver_extra: { chat_id: "1" } } });
    await alone.start(async () => ({ status: "accepted" }));
    stops.push(() => alone.stop());
    expect(logs).toContain(
      "error: webhook route 'r' is refused: deliver: memchat needs the gateway (hermes gateway run)",
    );
    await expect(make({ r: { deliver_only: "yes" } })).rejects.toThrow(
      "routes.r.deliver_only must be true or false",
    );
    await expect(make({ r: { deliver: "memchat", deliver_extra: "1" } })).rejects.toThrow(
      "routes.r.deliver_extra must be a mapping",
    );
    await expect(make({ r: { skills: [1] } })).rejects.toThrow(
      "routes.r.skills must be a list of skill names",
    );
  });
});
