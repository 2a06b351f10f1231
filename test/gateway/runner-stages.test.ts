/**
 * The inbound path reads one way: a message passes authorize → files → record → acknowledge →
 * lane → turn → outbound ledger → platform, each stage once. The ledger, the auth check, the
 * adapter's files and its sends are traced in the order they are reached.
 */
import { describe, expect, it } from "vitest";
import { GatewayAuth } from "../../src/gateway/auth/authorize.js";
import { type DeliveryLedger, gatewayLedger } from "../../src/gateway/ledger.js";
import { GatewayRunner } from "../../src/gateway/runner.js";
import type { InboundMessage, InboundReceipt } from "../../src/gateway/types.js";
import { useRuntime } from "../runtime/support.js";
import { MemoryAdapter } from "./support/memory-adapter.js";

const h = useRuntime();

/** The ledger with every method call written to `trail` as `ledger.<name>`. */
function traced(ledger: DeliveryLedger, trail: string[]): DeliveryLedger {
  return new Proxy(ledger, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        trail.push(`ledger.${String(name)}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function start(trail: string[]) {
  const t = h.start("streaming:\n  enabled: false\n", { platform: "gateway" });
  const auth = new GatewayAuth({
    pairing: t.runtime.sessions!.pairing,
    config: t.runtime.config,
    env: { MEMCHAT_ALLOWED_USERS: "u1" },
  });
  const check = auth.check.bind(auth);
  auth.check = (m) => {
    trail.push("authorize");
    return check(m);
  };
  const adapter = new MemoryAdapter();
  const send = adapter.send.bind(adapter);
  adapter.send = (...args) => {
    trail.push("platform.send");
    return send(...args);
  };
  const runner = new GatewayRunner({
    runtime: t.runtime,
    adapters: [adapter],
    ledger: traced(gatewayLedger(t.runtime.sessions!), trail),
    auth,
    workDir: t.box.work,
  });
  await runner.start();
  trail.length = 0;
  return { adapter, runner };
}

const message = (userId: string, text: string): InboundMessage => ({
  platform: "memchat",
  updateId: `u-${userId}-1`,
  chatId: `c-${userId}`,
  chatType: "dm",
  userId,
  text,
  receivedAt: Date.now(),
});

describe("the gateway's inbound stages", () => {
  it("take a message through each stage once, in order, recording it before acknowledging it", async () => {
    const trail: string[] = [];
    const { adapter, runner } = await start(trail);
    h.fake.setResponder(() => ({ text: "the answer" }));
    const receipt: InboundReceipt = await adapter.push(message("u1", "a question"), async () => {
      trail.push("files");
      return { attachments: [], notes: [] };
    });
    expect(receipt).toEqual({ status: "accepted" });
    expect(trail.slice(0, 4)).toEqual(["authorize", "ledger.inboundStatus", "files", "ledger.recordInbound"]);
    await adapter.waitForText("the answer");
    await runner.drain(5_000);
    expect(trail).toEqual([
      "authorize",
      "ledger.inboundStatus",
      "files",
      "ledger.recordInbound",
      "ledger.startInbound",
      "ledger.recordOutbound",
      "ledger.outbound",
      "platform.send",
      "ledger.markChunkSent",
      "ledger.markInbound",
    ]);
  });

  it("stop a stranger at authorize: the pairing reply is sent, nothing is fetched or recorded", async () => {
    const trail: string[] = [];
    const { adapter, runner } = await start(trail);
    const receipt = await adapter.push(message("stranger", "hello"), async () => {
      trail.push("files");
      return { attachments: [], notes: [] };
    });
    expect(receipt).toEqual({ status: "ignored" });
    await adapter.waitForText("Pairing code");
    await runner.drain(5_000);
    expect(trail).toEqual(["authorize", "platform.send"]);
    expect(h.fake.requests).toHaveLength(0);
  });
});
