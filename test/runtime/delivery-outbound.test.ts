import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DeliveryError, OutboundDelivery } from "../../src/runtime/delivery/outbound.js";
import { splitMessage } from "../../src/runtime/delivery/split.js";
import type { DeliveryLog, OutboundTarget } from "../../src/runtime/delivery/types.js";
import { RecordingAdapter } from "../gateway/support/recording-adapter.js";
import { startTsChild } from "../support/child.js";
import { openTestLedger } from "../support/ledger.js";
import { tempDir } from "../support/temp.js";

const target: OutboundTarget = { chatId: "42" };

function setup(o: { limit?: number; maxAttempts?: number; path?: string } = {}) {
  const path = o.path ?? join(tempDir("hermes-delivery-"), "state.db");
  const ledger = openTestLedger(path);
  const adapter = new RecordingAdapter({ maxMessageLength: o.limit ?? 4096 });
  const logs: { level: string; message: string }[] = [];
  const log: DeliveryLog = (level, message) => logs.push({ level, message });
  const delivery = new OutboundDelivery(adapter, ledger, {
    log,
    maxAttempts: o.maxAttempts ?? 4,
    retryBaseMs: 5,
  });
  return { path, ledger, adapter, delivery, logs };
}

/** Paragraphs of numbered lines: every chunk is recognisable. */
const longText = (paragraphs: number): string =>
  Array.from({ length: paragraphs }, (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(8).trim()}.`).join(
    "\n\n",
  );

/** A child gateway process (test/gateway/support/delivery-child.mjs) killed with SIGKILL on `signal`. */
async function killChildOn(signal: string, args: string[]): Promise<void> {
  const { child, done } = startTsChild("../gateway/support/delivery-child.mjs", args, (line) => {
    if (line === signal) child.kill("SIGKILL");
  });
  const run = await done;
  expect(run.stdout, run.stderr).toContain(signal);
  expect(run.code).toBeNull();
}

const readLog = (file: string): { method: string; id: string; text: string }[] => {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
};

describe("OutboundDelivery", () => {
  it("records, then sends a long text chunk by chunk, and never twice for the same key", async () => {
    const { ledger, adapter, delivery } = setup({ limit: 200 });
    const text = longText(10);
    const ids = await delivery.deliver("k1", target, text, {
      sessionKey: "s",
      buttons: [[{ text: "OK", data: "ok" }]],
    });
    const chunks = splitMessage(text, 200);
    expect(adapter.texts()).toEqual(chunks);
    expect(ids).toEqual(adapter.messages.map((m) => m.id));
    expect(ledger.outbound("k1")).toMatchObject({ status: "sent", messageIds: ids, sessionKey: "s" });
    // Buttons go under the last chunk only.
    const sends = adapter.done("send");
    expect(sends.at(-1)!.options?.buttons).toEqual([[{ text: "OK", data: "ok" }]]);
    expect(sends.slice(0, -1).every((c) => c.options?.buttons === undefined)).toBe(true);

    expect(await delivery.deliver("k1", target, text)).toEqual(ids);
    const both = await Promise.all([
      delivery.deliver("k2", target, "hello"),
      delivery.deliver("k2", target, "hello"),
    ]);
    expect(both[0]).toEqual(both[1]);
    expect(adapter.texts().filter((t) => t === "hello")).toHaveLength(1);
  });

  it("retries transient failures with backoff and honours a 429's retry-after", async () => {
    const { ledger, adapter, delivery, logs } = setup();
    adapter.fail("send", { kind: "retryable" }, 2);
    await delivery.deliver("r1", target, "first");
    expect(adapter.calls.filter((c) => c.method === "send").map((c) => c.error ?? "ok")).toEqual([
      "connection reset",
      "connection reset",
      "ok",
    ]);
    expect(ledger.outbound("r1")).toMatchObject({ status: "sent", attempts: 2 });

    adapter.fail("send", { kind: "rate_limit", retryAfter: 0.3 });
    await delivery.deliver("r2", target, "second");
    const [limited, retried] = adapter.calls.slice(-2);
    expect(limited!.error).toBe("Too Many Requests");
    expect(retried!.startedAt - limited!.endedAt).toBeGreaterThanOrEqual(290);
    expect(adapter.texts()).toEqual(["first", "second"]);
    expect(logs.filter((l) => l.message.includes("retrying"))).toHaveLength(3);
  });

  it("gives up after the attempt budget, leaving the message pending for the next start", async () => {
    const { path, ledger, adapter, delivery, logs } = setup({ maxAttempts: 3 });
    adapter.fail("send", { kind: "retryable" }, 3);
    const err = await delivery.deliver("p1", target, "later").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeliveryError);
    expect((err as DeliveryError).state).toBe("pending");
    expect(ledger.outbound("p1")).toMatchObject({ status: "pending", attempts: 3 });
    expect(logs.some((l) => l.level === "error")).toBe(true);
    expect(adapter.texts()).toEqual([]);
    ledger.close();

    const next = setup({ path });
    expect(await next.delivery.resumePending()).toBe(1);
    expect(next.adapter.texts()).toEqual(["later"]);
    expect(await next.delivery.resumePending()).toBe(0);
    expect(next.adapter.texts()).toEqual(["later"]);
  });

  it("marks a message the platform refuses for good as failed and never retries it", async () => {
    const { ledger, adapter, delivery } = setup();
    adapter.fail("send", { kind: "permanent" });
    const err = (await delivery.deliver("f1", target, "blocked").catch((e: unknown) => e)) as DeliveryError;
    expect(err.state).toBe("failed");
    expect(ledger.outbound("f1")).toMatchObject({
      status: "failed",
      lastError: expect.stringMatching(/blocked/),
    });
    expect(await delivery.resumePending()).toBe(0);
    await expect(delivery.deliver("f1", target, "blocked")).rejects.toThrow(/refused/);
    expect(adapter.calls).toHaveLength(1);
  });

  it("sends markdown the platform cannot parse once more as plain text", async () => {
    const { ledger, adapter, delivery } = setup();
    adapter.fail("send", { kind: "parse" }, 1, (_text, options) => options?.format !== "plain");
    await delivery.deliver("md", target, "**unclosed _markdown", { format: "markdown" });
    expect(adapter.calls.map((c) => c.options?.format)).toEqual(["markdown", "plain"]);
    expect(adapter.messages).toMatchObject([{ text: "**unclosed _markdown", format: "plain" }]);
    expect(ledger.outbound("md")?.status).toBe("sent");

    // Plain text refused too: a permanent failure, not a loop.
    adapter.fail("send", { kind: "parse" }, 2);
    await expect(delivery.deliver("md2", target, "*again*")).rejects.toThrow(DeliveryError);
    expect(adapter.calls).toHaveLength(4);
  });

  it("resumes at the first unsent chunk: a chunk already sent is never sent again", async () => {
    const { path, ledger, adapter, delivery } = setup({ limit: 120, maxAttempts: 1 });
    const text = longText(6);
    const chunks = splitMessage(text, 120);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    adapter.fail("send", { kind: "retryable" }, 1, (t) => t === chunks[2]);
    await expect(delivery.deliver("c1", target, text)).rejects.toThrow(/pending/);
    expect(adapter.texts()).toEqual(chunks.slice(0, 2));
    expect(ledger.outbound("c1")).toMatchObject({ status: "pending", body: { sent: 2 } });
    ledger.close();

    const next = setup({ path, limit: 120 });
    expect(await next.delivery.resumePending()).toBe(1);
    expect(next.adapter.texts()).toEqual(chunks.slice(2));
    expect(next.ledger.outbound("c1")?.messageIds).toHaveLength(chunks.length);
  });

  it("resumes pending messages oldest first and stops at one that still cannot go", async () => {
    const { path, ledger, delivery, adapter } = setup({ maxAttempts: 1 });
    adapter.fail("send", { kind: "retryable" }, 3);
    for (const key of ["m1", "m2", "m3"]) await delivery.deliver(key, target, key).catch(() => {});
    ledger.close();

    const next = setup({ path, maxAttempts: 1 });
    next.adapter.fail("send", { kind: "retryable" }, 1, (t) => t === "m2");
    expect(await next.delivery.resumePending()).toBe(1);
    expect(next.adapter.texts()).toEqual(["m1"]);
    expect(await next.delivery.resumePending()).toBe(2);
    expect(next.adapter.texts()).toEqual(["m1", "m2", "m3"]);
  });

  it("delivers files through sendFile, as a path line without it, and says so when one is missing", async () => {
    const dir = tempDir("hermes-files-");
    const file = join(dir, "chart.png");
    writeFileSync(file, "png");
    const { adapter, delivery, ledger } = setup();
    const id = await delivery.deliverFile("f:1", target, { path: file, kind: "photo" }, "s");
    expect(adapter.messages).toMatchObject([{ id, file: { path: file, kind: "photo" } }]);
    expect(ledger.outbound("f:1")).toMatchObject({ status: "sent", messageIds: [id] });
    expect(await delivery.deliverFile("f:1", target, { path: file })).toBe(id);

    await delivery.deliverFile("f:2", target, { path: join(dir, "gone.pdf") });
    expect(adapter.texts().at(-1)).toBe(`⚠ File not found: ${join(dir, "gone.pdf")}`);

    const textOnly = new RecordingAdapter({ name: "textonly" });
    Object.defineProperty(textOnly, "sendFile", { value: undefined });
    await new OutboundDelivery(textOnly, ledger).deliverFile("f:3", target, {
      path: file,
      caption: "Your chart",
    });
    expect(textOnly.texts()).toEqual([`Your chart\n📎 ${file}`]);
  });
});

describe("OutboundDelivery across a crash (SIGKILL)", () => {
  it("a message recorded by a process that died before sending is sent exactly once at the next start", async () => {
    const dir = tempDir("hermes-crash-");
    const db = join(dir, "state.db");
    const log = join(dir, "sent.log");
    const textFile = join(dir, "text.txt");
    writeFileSync(textFile, "The answer you waited for.");
    await killChildOn("recorded", ["record", db, log, "telegram:9:answer", textFile]);
    expect(readLog(log)).toEqual([]);

    // The child's adapter is named "child": the next start resumes that platform's rows.
    const ledger = openTestLedger(db);
    expect(ledger.stats().pending).toBe(1);
    const adapter = new RecordingAdapter({ name: "child" });
    expect(await new OutboundDelivery(adapter, ledger).resumePending()).toBe(1);
    expect(adapter.texts()).toEqual(["The answer you waited for."]);
    ledger.close();

    // Yet another start: nothing left to send.
    const third = openTestLedger(db);
    const again = new RecordingAdapter({ name: "child" });
    expect(await new OutboundDelivery(again, third).resumePending()).toBe(0);
    expect(again.calls).toEqual([]);
    third.close();
  });

  it("a process killed in the middle of a long message: the next start sends only the chunks it had not", async () => {
    const dir = tempDir("hermes-crash-");
    const db = join(dir, "state.db");
    const log = join(dir, "sent.log");
    const textFile = join(dir, "text.txt");
    const text = longText(8);
    writeFileSync(textFile, text);
    const chunks = splitMessage(text, 150);
    expect(chunks.length).toBeGreaterThan(3);
    await killChildOn("hanging", ["partial", db, log, "telegram:10:answer", textFile, "150"]);
    expect(readLog(log).map((l) => l.text)).toEqual([chunks[0]]);

    const ledger = openTestLedger(db);
    const adapter = new RecordingAdapter({ name: "child", maxMessageLength: 150 });
    expect(await new OutboundDelivery(adapter, ledger).resumePending()).toBe(1);
    expect(adapter.texts()).toEqual(chunks.slice(1));
    expect(ledger.outbound("telegram:10:answer")).toMatchObject({ status: "sent" });
    expect(ledger.outbound("telegram:10:answer")!.messageIds[0]).toBe("c1");
    ledger.close();
  });
});
