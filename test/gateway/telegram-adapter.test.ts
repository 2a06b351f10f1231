import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTelegramAdapter } from "../../src/gateway/platforms/telegram/adapter.js";
import {
  type AdapterContext,
  type InboundMessage,
  type PlatformAdapter,
  PlatformSendError,
} from "../../src/gateway/types.js";
import { closedPort } from "../support/closed-port.js";
import { type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.js";
import { tempDir } from "../support/temp.js";
import { collectingSink, refusingSink } from "./support/collecting-sink.js";

let fake: FakeTelegram;
let adapter: PlatformAdapter | undefined;
let received: InboundMessage[];
let logs: Array<{ level: string; message: string }>;

beforeEach(async () => {
  fake = await startFakeTelegram();
  received = [];
  logs = [];
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await fake.close();
});

function context(
  settings: Record<string, unknown> = {},
  overrides: Partial<AdapterContext> = {},
): AdapterContext {
  return {
    settings: { api_root: fake.apiRoot, ...settings },
    env: { TELEGRAM_BOT_TOKEN: fake.token },
    downloadDir: join(tempDir("hermes-tg-"), "downloads"),
    maxInboundBytes: 1024 * 1024,
    log: (level, message) => logs.push({ level, message }),
    ...overrides,
  };
}

async function started(settings: Record<string, unknown> = {}, overrides: Partial<AdapterContext> = {}) {
  adapter = await createTelegramAdapter(context(settings, overrides));
  await adapter.start(collectingSink(received));
  return adapter;
}

const inbound = (n: number): Promise<InboundMessage[]> =>
  fake.waitFor(() => (received.length >= n ? received : undefined));

async function sendError(promise: Promise<unknown>): Promise<PlatformSendError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformSendError);
  return error as PlatformSendError;
}

describe("receiving", () => {
  it("does not confirm an update the gateway could not record: it comes again and is taken once", async () => {
    adapter = await createTelegramAdapter(context());
    const sink = refusingSink(received, 1);
    await adapter.start(sink);
    const { updateId } = fake.sendUserMessage({ chatId: 7, userId: 7, text: "not lost" });
    const [m] = await inbound(1);
    expect(m!.text).toBe("not lost");
    expect(sink.handed).toEqual([String(updateId), String(updateId)]);
    // The getUpdates after the refusal did not confirm it; the one after it was taken did.
    await fake.waitFor(() => fake.calls.filter((c) => c.method === "getUpdates").length >= 3);
    const offsets = fake.calls.filter((c) => c.method === "getUpdates").map((c) => c.params.offset);
    expect(offsets.slice(0, 3)).toEqual([undefined, undefined, updateId + 1]);
  });

  it("maps a direct message and confirms it to Telegram once handled", async () => {
    await started();
    const { updateId, messageId } = fake.sendUserMessage({
      chatId: 42,
      userId: 42,
      text: "hello there",
      userName: "Ada",
      userHandle: "ada_l",
    });
    const [m] = await inbound(1);
    expect(m).toMatchObject({
      platform: "telegram",
      updateId: String(updateId),
      chatId: "42",
      chatType: "dm",
      userId: "42",
      userName: "Ada",
      userHandle: "ada_l",
      messageId: String(messageId),
      text: "hello there",
      addressed: true,
    });
    expect(m!.threadId).toBeUndefined();
    expect(fake.calls.map((c) => c.method)).toEqual(
      expect.arrayContaining(["getMe", "deleteWebhook", "setMyCommands"]),
    );
    // The next poll carries the offset that confirms the update.
    await fake.waitFor(() =>
      fake.calls.some((c) => c.method === "getUpdates" && c.params.offset === updateId + 1),
    );
  });

  it("knows when a group message is addressed to the bot", async () => {
    await started();
    const group = { chatId: -100500, userId: 7, chatType: "supergroup" as const };
    fake.sendUserMessage({ ...group, text: "just chatting" });
    fake.sendUserMessage({ ...group, text: "hey @hermes_test_bot what is 2+2?" });
    fake.sendUserMessage({ ...group, text: "/stop@hermes_test_bot" });
    fake.sendUserMessage({ ...group, text: "/stop@other_bot" });
    const messages = await inbound(4);
    expect(messages.map((m) => [m.chatType, m.addressed, m.text])).toEqual([
      ["group", false, "just chatting"],
      ["group", true, "hey @hermes_test_bot what is 2+2?"],
      ["group", true, "/stop"],
      ["group", false, "/stop@other_bot"],
    ]);
    expect(messages.every((m) => m.userId === "7" && m.chatId === "-100500")).toBe(true);
  });

  it("counts a reply to the bot as addressed and keeps forum topics as threads", async () => {
    const a = await started();
    const group = { chatId: -100600, userId: 8, chatType: "supergroup" as const };
    fake.sendUserMessage({ ...group, text: "first" });
    await inbound(1);
    await a.send({ chatId: "-100600" }, "bot says hi");
    fake.sendUserMessage({ ...group, text: "replying", replyToBot: true });
    fake.sendUserMessage({ ...group, text: "in a topic", threadId: 77 });
    fake.sendUserMessage({ chatId: -100700, userId: 9, chatType: "channel", text: "channel post" });
    const messages = await inbound(4);
    expect(messages[1]).toMatchObject({ text: "replying", addressed: true });
    expect(messages[2]).toMatchObject({ text: "in a topic", threadId: "77", addressed: false });
    expect(messages[3]).toMatchObject({ chatType: "channel", chatId: "-100700", text: "channel post" });
  });

  it("downloads the largest photo, documents and voice notes into the download folder", async () => {
    const ctx = context();
    adapter = await createTelegramAdapter(ctx);
    await adapter.start(collectingSink(received));
    const photo = Buffer.from("P".repeat(4000));
    const pdf = Buffer.from("%PDF-1.4 fake document body");
    const voice = Buffer.from("OggS fake voice");
    fake.sendUserMessage({ chatId: 5, userId: 5, text: "look at this", photo });
    fake.sendUserMessage({
      chatId: 5,
      userId: 5,
      text: "",
      document: { bytes: pdf, fileName: "../report.pdf", mimeType: "application/pdf" },
    });
    fake.sendUserMessage({ chatId: 5, userId: 5, text: "", voice });
    const [withPhoto, withDoc, withVoice] = await inbound(3);
    expect(withPhoto!.text).toBe("look at this");
    expect(withPhoto!.attachments).toHaveLength(1);
    expect(withPhoto!.attachments![0]).toMatchObject({ kind: "image", bytes: photo.length });
    expect(readFileSync(withPhoto!.attachments![0]!.path)).toEqual(photo);
    expect(withPhoto!.attachments![0]!.path.startsWith(ctx.downloadDir)).toBe(true);
    const doc = withDoc!.attachments![0]!;
    expect(doc).toMatchObject({ kind: "document", fileName: "../report.pdf", mimeType: "application/pdf" });
    expect(doc.path.startsWith(ctx.downloadDir)).toBe(true); // the name cannot climb out of the folder
    expect(readFileSync(doc.path)).toEqual(pdf);
    expect(withVoice!.attachments![0]!.kind).toBe("voice");
    expect(readFileSync(withVoice!.attachments![0]!.path)).toEqual(voice);
  });

  it("delivers the message with a note when a file is over the size cap", async () => {
    await started({}, { maxInboundBytes: 1000 });
    fake.sendUserMessage({
      chatId: 6,
      userId: 6,
      text: "big one",
      document: { bytes: Buffer.alloc(5000, 1), fileName: "big.bin" },
    });
    const [m] = await inbound(1);
    expect(m!.attachments).toBeUndefined();
    expect(m!.text).toMatch(
      /^big one\n\[attachment not received: big\.bin is 4\.9 KB, over the 1000 bytes limit\]$/,
    );
    expect(fake.calls.some((c) => c.method === "getFile")).toBe(false);
  });

  it("turns a button press into an action and answers it", async () => {
    const a = await started();
    fake.sendUserMessage({ chatId: 11, userId: 11, text: "hi" });
    await inbound(1);
    const sent = await a.send({ chatId: "11" }, "Run `rm -rf build`?", {
      buttons: [
        [
          { text: "Approve", data: "approve:1" },
          { text: "Deny", data: "deny:1" },
        ],
      ],
    });
    const { callbackQueryId } = fake.pressButton({
      chatId: 11,
      userId: 11,
      messageId: Number(sent.messageId),
      data: "deny:1",
    });
    const [, press] = await inbound(2);
    expect(press).toMatchObject({
      chatId: "11",
      userId: "11",
      text: "",
      messageId: sent.messageId,
      action: { data: "deny:1", callbackId: callbackQueryId },
    });
    await a.answerAction!(callbackQueryId, "Denied");
    expect(fake.callbackAnswer(callbackQueryId)).toEqual({ answered: true, text: "Denied" });
    // A second answer is refused by Telegram; the adapter only logs it.
    await a.answerAction!(callbackQueryId);
    expect(logs.some((l) => l.message.includes("button answer failed"))).toBe(true);
  });

  it("passes a redelivered update through (the ledger drops it) and stop() confirms what was handled", async () => {
    const first = await started();
    const { update } = fake.sendUserMessage({ chatId: 12, userId: 12, text: "once" });
    await inbound(1);
    fake.pushUpdate(update);
    const both = await inbound(2);
    expect(both[1]!.updateId).toBe(both[0]!.updateId);
    await first.stop();
    // A new process starts: it must not see the confirmed updates again, only the new one.
    received = [];
    adapter = await createTelegramAdapter(context());
    await adapter.start(collectingSink(received));
    fake.sendUserMessage({ chatId: 12, userId: 12, text: "twice" });
    const after = await inbound(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(after.map((m) => m.text)).toEqual(["twice"]);
  });

  it("keeps polling after getUpdates fails", async () => {
    fake.fail("getUpdates", { status: 502 });
    await started();
    fake.sendUserMessage({ chatId: 13, userId: 13, text: "still there?" });
    const [m] = await inbound(1);
    expect(m!.text).toBe("still there?");
    expect(logs.some((l) => l.level === "warn" && l.message.includes("polling failed"))).toBe(true);
  });

  it("stops while a long poll is waiting and confirms the handled updates", async () => {
    const a = await started();
    const { updateId } = fake.sendUserMessage({ chatId: 14, userId: 14, text: "hi" });
    await inbound(1);
    await fake.waitFor(() =>
      fake.calls.some((c) => c.method === "getUpdates" && c.params.offset === updateId + 1),
    );
    await a.stop();
    expect(fake.calls.at(-1)).toMatchObject({
      method: "getUpdates",
      params: { offset: updateId + 1, limit: 1, timeout: 0 },
      status: 200,
    });
  });
});

describe("sending", () => {
  beforeEach(() => {
    fake.sendUserMessage({ chatId: 21, userId: 21, text: "hi" });
    fake.sendUserMessage({ chatId: -100900, userId: 21, chatType: "supergroup", text: "hi", threadId: 5 });
  });

  const lastBot = (chatId: number) => fake.messagesIn(chatId).findLast((m) => m.from === "bot")!;

  it("renders markdown as HTML and sends plain text as it is", async () => {
    const a = await started();
    const { messageId } = await a.send(
      { chatId: "21" },
      "**Done**: `a < b` and [docs](https://example.com/x_y)",
    );
    const shown = lastBot(21);
    expect(String(shown.messageId)).toBe(messageId);
    expect(shown.parseMode).toBe("HTML");
    expect(shown.raw).toBe(
      '<b>Done</b>: <code>a &lt; b</code> and <a href="https://example.com/x_y">docs</a>',
    );
    expect(shown.text).toBe("Done: a < b and docs");
    await a.send({ chatId: "21" }, "**not bold** <tag>", { format: "plain" });
    expect(lastBot(21)).toMatchObject({ text: "**not bold** <tag>" });
    expect(lastBot(21).parseMode).toBeUndefined();
  });

  it("puts buttons, topics and replies where they belong", async () => {
    const a = await started();
    await a.send({ chatId: "-100900", threadId: "5", replyTo: "1" }, "in the topic", {
      buttons: [[{ text: "OK", data: "ok" }]],
    });
    const shown = lastBot(-100900);
    expect(shown).toMatchObject({
      threadId: 5,
      replyTo: 1,
      buttons: [[{ text: "OK", callback_data: "ok" }]],
    });
    const call = fake.calls.findLast((c) => c.method === "sendMessage")!;
    expect(call.params.reply_parameters).toEqual({ message_id: 1, allow_sending_without_reply: true });
  });

  it("edits a message, ignores an unchanged edit and refuses a missing one", async () => {
    const a = await started();
    const { messageId } = await a.send({ chatId: "21" }, "draft");
    await a.edit({ chatId: "21" }, messageId, "draft, *longer*");
    expect(lastBot(21)).toMatchObject({ text: "draft, longer", edits: 1 });
    await a.edit({ chatId: "21" }, messageId, "draft, *longer*");
    expect(fake.calls.findLast((c) => c.method === "editMessageText")!.status).toBe(400);
    expect(lastBot(21).edits).toBe(1);
    const error = await sendError(a.edit({ chatId: "21" }, "999", "nope"));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("message to edit not found");
  });

  it("falls back to plain text when Telegram cannot parse the HTML", async () => {
    const a = await started();
    fake.fail("sendMessage", {
      status: 400,
      description: "Bad Request: can't parse entities: Unsupported start tag",
    });
    await a.send({ chatId: "21" }, "**x**");
    const sends = fake.calls.filter((c) => c.method === "sendMessage");
    expect(sends.map((c) => [c.status, c.params.parse_mode])).toEqual([
      [400, "HTML"],
      [200, undefined],
    ]);
    expect(lastBot(21).text).toBe("**x**");
  });

  it("uploads files through the method their type calls for", async () => {
    const a = await started();
    const dir = tempDir("hermes-tg-out-");
    const files = {
      "chart.png": Buffer.from("\x89PNG fake"),
      "note.ogg": Buffer.from("OggS fake"),
      "song.mp3": Buffer.from("ID3 fake"),
      "clip.mp4": Buffer.from("ftyp fake"),
      "report.pdf": Buffer.from("%PDF fake"),
    };
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
    for (const name of Object.keys(files))
      await a.sendFile!(
        { chatId: "-100900", threadId: "5" },
        { path: join(dir, name), caption: `file ${name}` },
      );
    await a.sendFile!({ chatId: "21" }, { path: join(dir, "chart.png"), kind: "document" });
    const methods = fake.calls
      .filter((c) => c.method.startsWith("send") && c.method !== "sendMessage")
      .map((c) => c.method);
    expect(methods).toEqual([
      "sendPhoto",
      "sendVoice",
      "sendAudio",
      "sendVideo",
      "sendDocument",
      "sendDocument",
    ]);
    const shown = fake.messagesIn(-100900).filter((m) => m.from === "bot");
    expect(shown.map((m) => [m.kind, m.text, m.threadId])).toEqual([
      ["photo", "file chart.png", 5],
      ["voice", "file note.ogg", 5],
      ["audio", "file song.mp3", 5],
      ["video", "file clip.mp4", 5],
      ["document", "file report.pdf", 5],
    ]);
    expect(shown.map((m) => m.file!.bytes)).toEqual(Object.values(files));
    expect(shown[4]!.file!.fileName).toBe("report.pdf");
    const missing = await sendError(a.sendFile!({ chatId: "21" }, { path: join(dir, "gone.png") }));
    expect(missing.retryable).toBe(false);
  });

  it("shows typing in the right topic", async () => {
    const a = await started();
    await a.sendTyping!({ chatId: "-100900", threadId: "5" });
    expect(fake.calls.findLast((c) => c.method === "sendChatAction")!.params).toMatchObject({
      chat_id: "-100900",
      action: "typing",
      message_thread_id: 5,
    });
  });

  it("says which failures are worth retrying", async () => {
    const a = await started();
    fake.fail("sendMessage", { status: 429, retryAfter: 3 });
    const limited = await sendError(a.send({ chatId: "21" }, "x"));
    expect([limited.retryable, limited.retryAfter]).toEqual([true, 3]);
    expect(limited.message).toContain("429 Too Many Requests: retry after 3");
    fake.fail("sendMessage", { status: 500 });
    expect((await sendError(a.send({ chatId: "21" }, "x"))).retryable).toBe(true);
    fake.fail("sendMessage", { status: 403 });
    const blocked = await sendError(a.send({ chatId: "21" }, "x"));
    expect([blocked.retryable, blocked.message]).toEqual([
      false,
      "telegram sendMessage: 403 Forbidden: bot was blocked by the user",
    ]);
    const tooLong = await sendError(a.send({ chatId: "21" }, "y".repeat(4097), { format: "plain" }));
    expect([tooLong.retryable, tooLong.message]).toEqual([
      false,
      "telegram sendMessage: 400 Bad Request: message is too long",
    ]);
    // 4096 visible characters fit, even when the HTML source is longer.
    await a.send({ chatId: "21" }, `**${"<".repeat(4092)}**`);
    expect(lastBot(21).text).toHaveLength(4092);
    const unknownChat = await sendError(a.send({ chatId: "31337" }, "hello?"));
    expect(unknownChat.retryable).toBe(false);
  });

  it("treats an unreachable Bot API as retryable", async () => {
    const port = await closedPort();
    const a = await createTelegramAdapter(context({ api_root: `http://127.0.0.1:${port}` }));
    const error = await sendError(a.send({ chatId: "21" }, "x"));
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("network error");
  });
});

describe("starting", () => {
  it("refuses to start without a usable token or with a bad mode", async () => {
    await expect(createTelegramAdapter(context({}, { env: {} }))).rejects.toThrow(/TELEGRAM_BOT_TOKEN/);
    await expect(createTelegramAdapter(context({}, { env: { TELEGRAM_BOT_TOKEN: "nope" } }))).rejects.toThrow(
      /does not look like a bot token/,
    );
    await expect(createTelegramAdapter(context({ mode: "carrier-pigeon" }))).rejects.toThrow(
      /polling or webhook/,
    );
    await expect(createTelegramAdapter(context({ mode: "webhook" }))).rejects.toThrow(/webhook_url/);
  });

  it("reports a token Telegram refuses", async () => {
    const a = await createTelegramAdapter(context({}, { env: { TELEGRAM_BOT_TOKEN: "123:wrong" } }));
    await expect(a.start(async () => ({ status: "accepted" }))).rejects.toThrow(
      /401 Unauthorized.*TELEGRAM_BOT_TOKEN/,
    );
  });
});

describe("webhook mode", () => {
  it("takes updates Telegram posts with the secret and refuses the rest", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/telegram/hook`;
    await started({
      mode: "webhook",
      webhook_url: url,
      webhook_port: port,
      webhook_secret: "s3cret-Token_1",
    });
    expect(fake.webhook()).toEqual({ url, secret: "s3cret-Token_1" });

    fake.sendUserMessage({ chatId: 40, userId: 40, text: "via webhook" });
    const [m] = await inbound(1);
    expect(m!.text).toBe("via webhook");
    expect(fake.webhookDeliveries.at(-1)!.status).toBe(200);
    expect(fake.calls.some((c) => c.method === "getUpdates")).toBe(false);

    const post = (headers: Record<string, string>, path = "/telegram/hook") =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({
          update_id: 999,
          message: {
            message_id: 1,
            date: 0,
            chat: { id: 40, type: "private", first_name: "X" },
            from: { id: 40, is_bot: false, first_name: "X" },
            text: "forged",
          },
        }),
      });
    expect((await post({ "x-telegram-bot-api-secret-token": "wrong" })).status).toBe(401);
    expect((await post({})).status).toBe(401);
    expect((await post({ "x-telegram-bot-api-secret-token": "s3cret-Token_1" }, "/other")).status).toBe(404);
    expect(received.map((r) => r.text)).toEqual(["via webhook"]);
    expect(logs.some((l) => l.message.includes("wrong secret token"))).toBe(true);

    const good = await post({ "x-telegram-bot-api-secret-token": "s3cret-Token_1" });
    expect(good.status).toBe(200);
    expect(received.map((r) => [r.updateId, r.text])).toEqual([
      [m!.updateId, "via webhook"],
      ["999", "forged"],
    ]);
  });

  it("answers 503 with Retry-After for an update the gateway could not record; Telegram's retry is taken", async () => {
    const port = await closedPort();
    adapter = await createTelegramAdapter(
      context({ mode: "webhook", webhook_url: `http://127.0.0.1:${port}/hook`, webhook_port: port }),
    );
    const sink = refusingSink(received, 1);
    await adapter.start(sink);
    const { updateId } = fake.sendUserMessage({ chatId: 43, userId: 43, text: "retried" });
    expect((await inbound(1)).map((r) => r.text)).toEqual(["retried"]);
    expect(fake.webhookDeliveries.filter((d) => d.updateId === updateId).map((d) => d.status)).toEqual([
      503, 200,
    ]);
    expect(logs.some((l) => l.message.includes("update not recorded; Telegram will resend it"))).toBe(true);
  });

  it("makes up a secret when none is configured", async () => {
    const port = await closedPort();
    await started({ mode: "webhook", webhook_url: `http://127.0.0.1:${port}/hook`, webhook_port: port });
    expect(fake.webhook()!.secret).toMatch(/^[0-9a-f]{48}$/);
    fake.sendUserMessage({ chatId: 41, userId: 41, text: "ok" });
    expect((await inbound(1))[0]!.text).toBe("ok");
  });
});
