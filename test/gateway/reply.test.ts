import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { Reply, type StreamingOptions } from "../../src/gateway/reply.js";
import { OutboundDelivery } from "../../src/runtime/delivery/outbound.js";
import { splitMessage } from "../../src/runtime/delivery/split.js";
import { startTsChild } from "../support/child.js";
import { openTestLedger } from "../support/ledger.js";
import { tempDir } from "../support/temp.js";
import { RecordingAdapter } from "./support/recording-adapter.js";

const target = { chatId: "42" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setup(
  o: {
    limit?: number;
    minEditIntervalMs?: number;
    streaming?: Partial<StreamingOptions>;
    key?: string;
    path?: string;
  } = {},
) {
  const path = o.path ?? join(tempDir("hermes-reply-"), "state.db");
  const ledger = openTestLedger(path);
  const adapter = new RecordingAdapter({
    maxMessageLength: o.limit ?? 4096,
    minEditIntervalMs: o.minEditIntervalMs ?? 0,
  });
  const delivery = new OutboundDelivery(adapter, ledger, { retryBaseMs: 5, maxAttempts: 2 });
  const reply = new Reply({
    delivery,
    adapter,
    target,
    key: o.key ?? "telegram:1",
    sessionKey: "agent:main:telegram:dm:42",
    streaming: { enabled: true, editIntervalMs: 30, bufferThreshold: 10, ...o.streaming },
  });
  return { path, ledger, adapter, delivery, reply };
}

const delta = (text: string, attempt = 1): AgentEvent => ({ type: "text_delta", text, attempt });

/** Waits until `check` holds (the preview settles on its own timer). */
async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await sleep(5);
  }
}

describe("Reply without streaming", () => {
  it("records the answer under <key>:answer and delivers it, split at the platform limit", async () => {
    const { ledger, adapter, reply } = setup({ limit: 100, streaming: { enabled: false } });
    reply.onEvent(delta("ignored preview text, streaming is off"));
    const answer = Array.from({ length: 12 }, (_, i) => `Line ${i} of the answer.`).join("\n");
    await reply.finish(answer);
    expect(adapter.texts()).toEqual(splitMessage(answer, 100));
    expect(adapter.done("edit")).toEqual([]);
    expect(ledger.outbound("telegram:1:answer")).toMatchObject({
      status: "sent",
      sessionKey: "agent:main:telegram:dm:42",
    });
  });

  it("the same turn finished again (a re-run after a restart) sends nothing more", async () => {
    const { path, adapter, reply, ledger } = setup({ streaming: { enabled: false } });
    await reply.finish("Done.");
    ledger.close();
    const again = setup({ path, streaming: { enabled: false } });
    await again.reply.finish("Done, differently worded.");
    expect(adapter.texts()).toEqual(["Done."]);
    expect(again.adapter.calls).toEqual([]);
  });
});

describe("Reply streaming by edits", () => {
  it("waits for the buffer threshold before the first message, then edits it; finish shows exactly the answer", async () => {
    const { adapter, reply, ledger } = setup({ streaming: { bufferThreshold: 20 } });
    reply.onEvent(delta("Hello"));
    await sleep(80);
    expect(adapter.calls).toEqual([]);
    reply.onEvent(delta(", this is long enough"));
    await until(() => adapter.messages.length === 1);
    reply.onEvent(delta(" and more."));
    await until(() => adapter.messages[0]!.text === "Hello, this is long enough and more.");
    await reply.finish("Hello, this is long enough and more. Final.");
    expect(adapter.texts()).toEqual(["Hello, this is long enough and more. Final."]);
    expect(adapter.done("send")).toHaveLength(1);
    expect(ledger.outbound("telegram:1:answer")).toMatchObject({
      status: "sent",
      messageIds: [adapter.messages[0]!.id],
    });
  });

  it("throttles a fast stream of 2 000 deltas to one edit per interval, one call at a time, the last with all the text", async () => {
    const { adapter, reply } = setup({
      limit: 20_000,
      streaming: { editIntervalMs: 100, bufferThreshold: 1 },
    });
    adapter.delayMs = 15;
    const started = Date.now();
    let streamed = "";
    for (let i = 0; i < 2_000; i++) {
      const piece = `w${i} `;
      streamed += piece;
      reply.onEvent(delta(piece));
      if (i % 10 === 9) await sleep(4);
    }
    await until(
      () => adapter.messages[0]?.text === streamed.trimEnd() || adapter.messages[0]?.text === streamed,
    );
    const elapsed = Date.now() - started;
    const edits = adapter.done("edit");
    // One send, then at most one edit per 100 ms window (plus the window the stream ended in).
    expect(adapter.done("send")).toHaveLength(1);
    expect(edits.length).toBeGreaterThanOrEqual(2);
    expect(edits.length).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 1);
    const starts = adapter.calls.map((c) => c.startedAt);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(95);
    expect(adapter.maxInFlight).toBe(1);
    await reply.finish(streamed);
    expect(adapter.texts()).toEqual([streamed]);
  });

  it("the adapter's own edit floor wins over a shorter edit interval", async () => {
    const { adapter, reply } = setup({
      minEditIntervalMs: 150,
      streaming: { editIntervalMs: 10, bufferThreshold: 1 },
    });
    for (let i = 0; i < 60; i++) {
      reply.onEvent(delta(`${i} `));
      await sleep(5);
    }
    await reply.finish("done");
    const starts = adapter.calls
      .filter((c) => c.method === "edit" || c.method === "send")
      .map((c) => c.startedAt);
    // The final edit is the answer's, not a preview: only previews are throttled.
    for (let i = 1; i < starts.length - 1; i++)
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(145);
    expect(adapter.texts()).toEqual(["done"]);
  });

  it("freezes a preview that outgrows the platform limit and continues in a new message", async () => {
    const { adapter, reply } = setup({ limit: 100, streaming: { bufferThreshold: 1, editIntervalMs: 10 } });
    const words = Array.from({ length: 90 }, (_, i) => `word${i}`);
    for (const w of words) {
      reply.onEvent(delta(`${w} `));
      await sleep(1);
    }
    const full = `${words.join(" ")} `;
    await until(() => adapter.texts().join("") === splitMessage(full, 100).join(""));
    expect(adapter.messages.length).toBeGreaterThanOrEqual(4);
    expect(adapter.messages.every((m) => m.text.length <= 100)).toBe(true);

    const answer = words.join(" ");
    await reply.finish(answer);
    const expected = splitMessage(answer, 100);
    expect(adapter.texts().slice(0, expected.length)).toEqual(expected);
    expect(
      adapter
        .texts()
        .slice(expected.length)
        .every((t) => t === "⋯"),
    ).toBe(true);
    expect(adapter.messages.every((m) => m.text.length <= 100)).toBe(true);
  });

  it("drops the text of a discarded attempt from the preview", async () => {
    const { adapter, reply } = setup({ streaming: { bufferThreshold: 1 } });
    reply.onEvent(delta("Wrong start that will be withdrawn", 1));
    await until(() => adapter.messages[0]?.text === "Wrong start that will be withdrawn");
    reply.onEvent({ type: "attempt_discarded", attempt: 1, reason: "server_error" });
    reply.onEvent(delta("Right answer", 2));
    await until(() => adapter.messages[0]?.text === "Right answer");
    await reply.finish("Right answer.");
    expect(adapter.texts()).toEqual(["Right answer."]);
  });

  it("shows a short progress line per tool while streaming, which the answer replaces", async () => {
    const { adapter, reply } = setup({ streaming: { bufferThreshold: 50 } });
    reply.onEvent({
      type: "tool_start",
      callId: "1",
      name: "terminal",
      args: { command: "ls -la" },
      emoji: "💻",
    });
    await until(() => adapter.messages[0]?.text === "⚙ terminal: ls -la");
    const long = `cat ${"/very/long/path".repeat(20)}`;
    reply.onEvent({
      type: "tool_start",
      callId: "2",
      name: "terminal",
      args: { command: long },
      emoji: "💻",
    });
    await until(() => adapter.messages[0]!.text.split("\n").length === 2);
    const lines = adapter.messages[0]!.text.split("\n");
    expect(lines[1]!.startsWith("⚙ terminal: cat /very/long/path")).toBe(true);
    expect(lines[1]!.length).toBeLessThanOrEqual(80);
    expect(lines[1]!.endsWith("…")).toBe(true);
    await reply.finish("Listed the folder.");
    expect(adapter.texts()).toEqual(["Listed the folder."]);
  });

  it("keeps previews going in plain text when the platform cannot parse partial markdown", async () => {
    const { adapter, reply } = setup({ streaming: { bufferThreshold: 1 } });
    adapter.fail("send", { kind: "parse" }, 1);
    reply.onEvent(delta("**bold that is not closed yet"));
    await until(() => adapter.messages.length === 1);
    expect(adapter.messages[0]!.format).toBe("plain");
    await reply.finish("**bold** closed");
    expect(adapter.messages).toMatchObject([{ text: "**bold** closed", format: undefined }]);
  });

  it("takes MEDIA: lines out of the answer and sends the files", async () => {
    const dir = tempDir("hermes-media-");
    const image = join(dir, "plot.png");
    writeFileSync(image, "png");
    const { adapter, reply, ledger } = setup({ streaming: { bufferThreshold: 1 } });
    reply.onEvent(delta("Here is the plot"));
    await until(() => adapter.messages.length === 1);
    await reply.finish(`Here is the plot.\nMEDIA:${image}\n\`\`\`\nMEDIA:/an/example/in/code\n\`\`\``);
    expect(adapter.messages.map((m) => m.text)).toEqual([
      "Here is the plot.\n```\nMEDIA:/an/example/in/code\n```",
      "",
    ]);
    expect(adapter.messages[1]!.file).toEqual({ path: image });
    expect(ledger.outbound("telegram:1:file:0")).toMatchObject({ status: "sent" });
  });

  it("fail() delivers a short error message", async () => {
    const { adapter, reply } = setup();
    await reply.fail(`The model provider is unreachable. ${"detail ".repeat(200)}`);
    expect(adapter.texts()).toHaveLength(1);
    expect(adapter.texts()[0]!.startsWith("⚠ The model provider is unreachable.")).toBe(true);
    expect(adapter.texts()[0]!.length).toBeLessThanOrEqual(402);
    reply.onEvent(delta("late text"));
    await reply.finish("late answer");
    expect(adapter.texts()).toHaveLength(1);
  });

  it("an answer the platform would not take now stays recorded and goes out at the next start", async () => {
    const { path, adapter, reply, ledger } = setup({ streaming: { enabled: false } });
    adapter.fail("send", { kind: "retryable" }, 2);
    await reply.finish("Eventually delivered.");
    expect(adapter.texts()).toEqual([]);
    expect(ledger.outbound("telegram:1:answer")?.status).toBe("pending");
    ledger.close();
    const next = setup({ path });
    expect(await next.delivery.resumePending()).toBe(1);
    expect(next.adapter.texts()).toEqual(["Eventually delivered."]);
  });
});

describe("Reply across a crash (SIGKILL)", () => {
  it("an answer recorded by a process that died before showing it is sent once, as new messages, at the next start", async () => {
    const dir = tempDir("hermes-reply-crash-");
    const db = join(dir, "state.db");
    const log = join(dir, "sent.log");
    const textFile = join(dir, "text.txt");
    const answer = Array.from({ length: 10 }, (_, i) => `Point ${i}: something worth saying.`).join("\n");
    writeFileSync(textFile, answer);
    const { child, done } = startTsChild(
      "../gateway/support/delivery-child.mjs",
      ["reply", db, log, "telegram:77", textFile],
      (line) => {
        if (line === "hanging") child.kill("SIGKILL");
      },
    );
    const run = await done;
    expect(run.stdout, run.stderr).toContain("streamed");
    expect(run.stdout).not.toContain("finished");
    const shown = readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { method: string });
    expect(shown[0]!.method).toBe("send");

    const ledger = openTestLedger(db);
    expect(ledger.outbound("telegram:77:answer")).toMatchObject({ status: "pending", body: { sent: 0 } });
    const adapter = new RecordingAdapter({ name: "child" });
    const delivery = new OutboundDelivery(adapter, ledger);
    expect(await delivery.resumePending()).toBe(1);
    expect(await delivery.resumePending()).toBe(0);
    expect(adapter.texts()).toEqual([`${answer}\n\nDone.`]);
    expect(adapter.done("edit")).toEqual([]);
    ledger.close();
  });
});
