/**
 * Telegram through grammY's Bot API client: updates by long polling (default) or by webhook, answers
 * as HTML rendered from the model's markdown, streamed by edits, files by upload. Loaded only when
 * the telegram platform is on (grammY is imported here and nowhere else). grammY's web build runs on
 * Node's own fetch: its Node build pulls in node-fetch, whose URL code warns about `punycode` at
 * load and which the bundler cannot take apart as ES modules.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { Api, Bot, InputFile as GrammyInputFile } from "grammy";
import type { Update } from "grammy/types";
import {
  type AdapterContext,
  type Button,
  type InboundAttachment,
  type InboundReceipt,
  type InboundSink,
  type OutboundFile,
  type OutboundTarget,
  type PlatformAdapter,
  PlatformSendError,
  type SendOptions,
} from "../../types.js";
import { isNotModified, isParseError, toSendError } from "./errors.js";
import { AttachmentSkipped, downloadFile, sendMethodFor } from "./files.js";
import { type BotIdentity, type MappedUpdate, mapUpdate } from "./inbound.js";
import { LongPoller } from "./polling.js";
import { markdownToTelegramHtml } from "./render.js";
import { readTelegramSettings, type TelegramAdapterSettings } from "./settings.js";
import { startWebhookServer, type WebhookServer } from "./webhook.js";

/** The updates the gateway reads (Telegram sends only these). */
const ALLOWED_UPDATES = ["message", "channel_post", "callback_query"] as const;
const POLL_SECONDS = 25;
const MAX_CAPTION = 1024;

/** The command menu Telegram shows under "/" (the gateway's own chat commands). */
const COMMAND_MENU = [
  { command: "new", description: "Start a new conversation" },
  { command: "stop", description: "Stop the running answer" },
  { command: "queue", description: "Send a message after the running answer" },
  { command: "status", description: "Model, session and what is running" },
  { command: "approve", description: "Approve the pending command" },
  { command: "deny", description: "Deny the pending command" },
  { command: "usage", description: "Tokens and cost of this conversation" },
  { command: "model", description: "Show or switch the model" },
  { command: "help", description: "List the commands" },
];

type InputFileClass = new (file: ReturnType<typeof createReadStream>, filename?: string) => GrammyInputFile;

export async function createTelegramAdapter(context: AdapterContext): Promise<PlatformAdapter> {
  const settings = readTelegramSettings(context);
  const grammy = await import("grammy/web");
  const bot = new grammy.Bot(settings.token, {
    client: {
      ...(settings.apiRoot ? { apiRoot: settings.apiRoot } : {}),
      // Above the long-poll wait, so a getUpdates is never cut short by the client.
      timeoutSeconds: POLL_SECONDS + 35,
    },
  });
  return new TelegramAdapter(bot, grammy.InputFile, settings, context);
}

export class TelegramAdapter implements PlatformAdapter {
  readonly name = "telegram";
  readonly maxMessageLength = 4096;
  readonly minEditIntervalMs = 1000;
  /** The bot's @name once connected. */
  username: string | undefined;
  private readonly api: Api;
  private identity: BotIdentity | undefined;
  private poller: LongPoller | undefined;
  private webhookServer: WebhookServer | undefined;
  private sink: InboundSink | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly bot: Bot,
    private readonly InputFile: InputFileClass,
    private readonly settings: TelegramAdapterSettings,
    private readonly context: AdapterContext,
  ) {
    this.api = bot.api;
  }

  describe(): string | undefined {
    if (!this.username) return undefined;
    const how = this.webhookServer ? `webhook on port ${this.webhookServer.port}` : "long polling";
    return `as @${this.username} (${how})`;
  }

  /** The port the webhook server listens on (webhook mode). */
  get port(): number | undefined {
    return this.webhookServer?.port;
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    try {
      await this.bot.init();
    } catch (error) {
      const failure = toSendError("getMe", error);
      const hint = /\b401\b/.test(failure.message)
        ? " (the bot token was refused: check TELEGRAM_BOT_TOKEN)"
        : "";
      throw new Error(`${failure.message}${hint}`);
    }
    const me = this.bot.botInfo;
    this.identity = { id: me.id, username: me.username };
    this.username = me.username;
    await this.api.setMyCommands(COMMAND_MENU).catch((error: unknown) => {
      this.context.log("warn", "telegram: could not set the command menu", {
        error: toSendError("setMyCommands", error).message,
      });
    });
    if (this.settings.mode === "webhook") await this.startWebhook();
    else await this.startPolling();
    this.context.log("info", `telegram: connected as @${me.username}`, { mode: this.settings.mode });
  }

  async stop(): Promise<void> {
    await this.poller?.stop();
    await this.webhookServer?.close();
    this.poller = undefined;
    this.webhookServer = undefined;
    await Promise.all(this.inFlight);
  }

  private async startPolling(): Promise<void> {
    // A webhook left set would make getUpdates fail with 409: polling takes over from it.
    await this.api.deleteWebhook({ drop_pending_updates: false });
    this.poller = new LongPoller({
      // grammY types its signal after the abort-controller polyfill; node-fetch takes the native one.
      getUpdates: (params, signal) =>
        this.api.getUpdates(
          params as Parameters<Api["getUpdates"]>[0],
          signal as unknown as Parameters<Api["getUpdates"]>[1],
        ),
      handle: (update) => this.track(this.handleUpdate(update)),
      onError: (error, fatal) => {
        const message = toSendError("getUpdates", error).message;
        this.context.log(
          fatal ? "error" : "warn",
          `telegram: polling failed${fatal ? "; stopped" : ", retrying"}`,
          {
            error: message,
          },
        );
      },
      onRecovered: () => this.context.log("info", "telegram: polling recovered"),
      pollSeconds: POLL_SECONDS,
      allowedUpdates: [...ALLOWED_UPDATES],
    });
    this.poller.start();
  }

  private async startWebhook(): Promise<void> {
    const hook = this.settings.webhook!;
    this.webhookServer = await startWebhookServer({
      host: hook.host,
      port: hook.port,
      path: hook.path,
      secret: hook.secret,
      handle: (update) => this.track(this.handleUpdate(update)),
      log: this.context.log,
    });
    try {
      await this.api.setWebhook(hook.url, {
        secret_token: hook.secret,
        allowed_updates: ALLOWED_UPDATES,
      });
    } catch (error) {
      await this.webhookServer.close();
      this.webhookServer = undefined;
      throw new Error(toSendError("setWebhook", error).message);
    }
  }

  private track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    return work.finally(() => this.inFlight.delete(settled));
  }

  /**
   * Maps the update and hands it over with a way to fetch its files, which the gateway calls only
   * for a sender it lets in. Resolves with the gateway's receipt: whether to confirm the update.
   */
  private async handleUpdate(update: Update): Promise<InboundReceipt> {
    const mapped = this.identity ? mapUpdate(update, this.identity) : undefined;
    if (!mapped) return { status: "ignored" };
    if (!this.sink) return { status: "unavailable", retryAfterSeconds: 1, reason: "not started" };
    const fetch = mapped.files.length > 0 ? () => this.download(mapped) : undefined;
    return this.sink({ ...mapped.message, receivedAt: Date.now() }, fetch);
  }

  /** Downloads the files of an update; one that cannot be had becomes a note, never a lost message. */
  private async download(
    mapped: MappedUpdate,
  ): Promise<{ attachments: InboundAttachment[]; notes: string[] }> {
    const attachments: InboundAttachment[] = [];
    const notes: string[] = [];
    for (const [index, ref] of mapped.files.entries()) {
      try {
        attachments.push(
          await downloadFile(
            {
              getFile: (fileId) => this.api.getFile(fileId),
              fileUrl: (path) =>
                `${this.settings.apiRoot ?? "https://api.telegram.org"}/file/bot${this.settings.token}/${path}`,
            },
            ref,
            {
              dir: this.context.downloadDir,
              prefix: `${mapped.message.updateId}-${index}`,
              maxBytes: this.context.maxInboundBytes,
            },
          ),
        );
      } catch (error) {
        const reason = error instanceof AttachmentSkipped ? error.message : String(error);
        notes.push(`[attachment not received: ${reason}]`);
        this.context.log("warn", "telegram: attachment not received", {
          updateId: mapped.message.updateId,
          reason,
        });
      }
    }
    return { attachments, notes };
  }

  async send(target: OutboundTarget, text: string, options?: SendOptions): Promise<{ messageId: string }> {
    const base = { ...placement(target), ...keyboard(options?.buttons) };
    const message = await this.formatted("sendMessage", text, options, (body, parse) =>
      this.api.sendMessage(target.chatId, body, { ...base, ...parse }),
    );
    return { messageId: String(message.message_id) };
  }

  async edit(target: OutboundTarget, messageId: string, text: string, options?: SendOptions): Promise<void> {
    const markup = keyboard(options?.buttons);
    try {
      await this.formatted("editMessageText", text, options, (body, parse) =>
        this.api.editMessageText(target.chatId, Number(messageId), body, { ...markup, ...parse }),
      );
    } catch (error) {
      if (isNotModified(error)) return; // the same text again: nothing to do
      throw error;
    }
  }

  /**
   * Sends markdown as HTML; if Telegram still cannot parse it, sends the text as it is rather than
   * nothing. "Not modified" passes through untouched for edit() to ignore.
   */
  private async formatted<T>(
    method: string,
    text: string,
    options: SendOptions | undefined,
    call: (body: string, parse: { parse_mode?: "HTML" }) => Promise<T>,
  ): Promise<T> {
    try {
      if ((options?.format ?? "markdown") === "plain") return await call(text, {});
      try {
        return await call(markdownToTelegramHtml(text), { parse_mode: "HTML" });
      } catch (error) {
        if (!isParseError(error)) throw error;
        this.context.log("warn", "telegram: HTML refused, sending plain text", { error: String(error) });
        return await call(text, {});
      }
    } catch (error) {
      if (isNotModified(error)) throw error;
      throw toSendError(method, error);
    }
  }

  async sendFile(target: OutboundTarget, file: OutboundFile): Promise<{ messageId: string }> {
    let size: number;
    try {
      const info = await stat(file.path);
      if (!info.isFile()) throw new Error("not a file");
      size = info.size;
    } catch {
      throw new PlatformSendError(`telegram: cannot send ${file.path}: no such file`, false);
    }
    const { method } = sendMethodFor(file, size);
    const upload = new this.InputFile(createReadStream(file.path), basename(file.path));
    const other = {
      ...placement(target),
      ...(file.caption ? { caption: file.caption.slice(0, MAX_CAPTION) } : {}),
    };
    try {
      const message = await this.sendUpload(method, target.chatId, upload, other);
      return { messageId: String(message.message_id) };
    } catch (error) {
      throw toSendError(method, error);
    }
  }

  private sendUpload(
    method: ReturnType<typeof sendMethodFor>["method"],
    chatId: string,
    upload: GrammyInputFile,
    other: ReturnType<typeof placement> & { caption?: string },
  ): Promise<{ message_id: number }> {
    switch (method) {
      case "sendPhoto":
        return this.api.sendPhoto(chatId, upload, other);
      case "sendVoice":
        return this.api.sendVoice(chatId, upload, other);
      case "sendAudio":
        return this.api.sendAudio(chatId, upload, other);
      case "sendVideo":
        return this.api.sendVideo(chatId, upload, other);
      case "sendDocument":
        return this.api.sendDocument(chatId, upload, other);
    }
  }

  async sendTyping(target: OutboundTarget): Promise<void> {
    const thread = placement(target).message_thread_id;
    await this.api
      .sendChatAction(target.chatId, "typing", thread !== undefined ? { message_thread_id: thread } : {})
      .catch((error: unknown) => {
        this.context.log("warn", "telegram: typing indicator failed", {
          error: toSendError("sendChatAction", error).message,
        });
      });
  }

  async answerAction(callbackId: string, text?: string): Promise<void> {
    await this.api
      .answerCallbackQuery(callbackId, text ? { text: text.slice(0, 200) } : {})
      .catch((error: unknown) => {
        this.context.log("warn", "telegram: button answer failed", {
          error: toSendError("answerCallbackQuery", error).message,
        });
      });
  }
}

/** Topic and reply of a message. */
function placement(target: OutboundTarget): {
  message_thread_id?: number;
  reply_parameters?: { message_id: number; allow_sending_without_reply: boolean };
} {
  const thread = target.threadId !== undefined ? Number(target.threadId) : Number.NaN;
  const reply = target.replyTo !== undefined ? Number(target.replyTo) : Number.NaN;
  return {
    ...(Number.isInteger(thread) ? { message_thread_id: thread } : {}),
    ...(Number.isInteger(reply)
      ? { reply_parameters: { message_id: reply, allow_sending_without_reply: true } }
      : {}),
  };
}

function keyboard(buttons: Button[][] | undefined): {
  reply_markup?: { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
} {
  if (!buttons || buttons.length === 0) return {};
  return {
    reply_markup: {
      inline_keyboard: buttons.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))),
    },
  };
}
