import { createHmac } from "node:crypto";
import { afterEach } from "vitest";
import { GatewayAuth } from "../../../src/gateway/auth/authorize.js";
import { type DeliveryLedger, gatewayLedger } from "../../../src/gateway/ledger.js";
import { createWebhookAdapter, type WebhookAdapter } from "../../../src/gateway/platforms/webhook/index.js";
import { GatewayRunner } from "../../../src/gateway/runner.js";
import { type TestRuntime, useRuntime } from "../../runtime/support.js";
import type { FakeLlm } from "../../support/fake-llm.js";

export const WEBHOOK_SECRET = "s3cret-for-tests";

export const hmac = (secret: string, body: string): string =>
  createHmac("sha256", secret).update(body).digest("hex");

/** GitHub's signature header over the body alone. */
export const githubSigned = (body: string, secret = WEBHOOK_SECRET): Record<string, string> => ({
  "x-hub-signature-256": `sha256=${hmac(secret, body)}`,
});

/** Hermes's timestamped signature: HMAC over `<timestamp>.<body>`, the timestamp in its own header. */
export const timestampSigned = (
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
  secret = WEBHOOK_SECRET,
): Record<string, string> => ({
  "x-hermes-timestamp": String(timestamp),
  "x-hermes-signature": hmac(secret, `${timestamp}.${body}`),
});

export interface WebhookGateway {
  t: TestRuntime;
  adapter: WebhookAdapter;
  runner: GatewayRunner;
  ledger: DeliveryLedger;
  logs: string[];
  post(route: string, body: string, headers?: Record<string, string>): Promise<Response>;
  /** Drains this gateway and starts another on the same home and state.db (a restart). */
  restart(): Promise<WebhookGateway>;
}

export interface WebhookGatewayHarness {
  readonly fake: FakeLlm;
  /** The real runtime, ledger, auth and runner with the webhook adapter on a free loopback port. */
  start(webhookSettings: Record<string, unknown>, extraYaml?: string): Promise<WebhookGateway>;
}

/** A webhook gateway per test, drained after it. */
export function useWebhookGateway(): WebhookGatewayHarness {
  const h = useRuntime();
  let current: WebhookGateway | undefined;
  // Registered after useRuntime's hooks, so it runs first: the runner drains before the runtime goes.
  afterEach(async () => {
    if (!current) return;
    await current.runner.drain(5_000);
    current = undefined;
  });
  return {
    get fake() {
      return h.fake;
    },
    start: async (webhookSettings, extraYaml = "") => {
      const t = h.start(extraYaml, { platform: "gateway" });
      const launch = async (): Promise<WebhookGateway> => {
        const logs: string[] = [];
        const adapter = await createWebhookAdapter({
          settings: { host: "127.0.0.1", port: 0, ...webhookSettings },
          env: {},
          downloadDir: t.runtime.paths.cache,
          maxInboundBytes: 1024,
          log: (level, message, fields) => logs.push(`${level}: ${message} ${JSON.stringify(fields ?? {})}`),
        });
        const ledger = gatewayLedger(t.runtime.sessions!);
        const auth = new GatewayAuth({
          pairing: t.runtime.sessions!.pairing,
          config: t.runtime.config,
          env: {},
        });
        const runner = new GatewayRunner({
          runtime: t.runtime,
          adapters: [adapter],
          ledger,
          auth,
          workDir: t.box.work,
        });
        await runner.start();
        const gw: WebhookGateway = {
          t,
          adapter,
          runner,
          ledger,
          logs,
          post: (route, body, headers = {}) =>
            fetch(`http://127.0.0.1:${adapter.port}/webhooks/${route}`, {
              method: "POST",
              headers: { "content-type": "application/json", ...headers },
              body,
            }),
          restart: async () => {
            await runner.drain(5_000);
            current = undefined;
            current = await launch();
            return current;
          },
        };
        current = gw;
        return gw;
      };
      return launch();
    },
  };
}

/** Polls `predicate` every 20 ms; throws after `timeoutMs` naming what it waited for. */
export async function until(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
