/**
 * What the fake Bot API (test/support/fake-telegram.ts) keeps about chats: their messages as they
 * show now, the files in them, pending button presses, and the methods that read and change them
 * (send, edit, delete, upload, getFile, answerCallbackQuery, commands), with the real server's
 * checks and error descriptions. The user's side builds the updates a real client would cause.
 */
import { randomBytes } from "node:crypto";
import { parseTelegramHtml, type UploadedFile } from "./fake-telegram-wire.js";

export type Json = Record<string, unknown>;
export type TelegramChatType = "private" | "group" | "supergroup" | "channel";

export interface FakeButton {
  text: string;
  callback_data?: string;
  url?: string;
}

/** One message as the chat shows it now (after edits). */
export interface ChatMessage {
  messageId: number;
  chatId: string;
  threadId?: number;
  from: "user" | "bot";
  userId?: number;
  kind: "text" | "photo" | "document" | "voice" | "audio" | "video" | "animation";
  /** Visible text (a file's caption), entities parsed away. */
  text: string;
  /** What the bot sent before parsing (HTML source with parse_mode HTML). */
  raw?: string;
  parseMode?: string;
  buttons?: FakeButton[][];
  file?: { fileId: string; fileName?: string; bytes: Buffer };
  replyTo?: number;
  edits: number;
}

export interface UserMessageSpec {
  chatId: number;
  userId: number;
  text: string;
  chatType?: TelegramChatType;
  threadId?: number;
  userName?: string;
  userHandle?: string;
  /** Reply to the bot's latest message in the chat (true) or to this message id. */
  replyToBot?: boolean | number;
  photo?: Buffer;
  document?: { bytes: Buffer; fileName: string; mimeType?: string };
  voice?: Buffer;
}

export interface BotUser {
  id: number;
  is_bot: true;
  first_name: string;
  username: string;
}

/** A Bot API error: status, description and optional parameters (retry_after). */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: Json,
  ) {
    super(description);
  }
}

export const badRequest = (what: string): ApiError => new ApiError(400, `Bad Request: ${what}`);

export type BotMethod = (params: Json, uploads: Map<string, UploadedFile>) => unknown;

interface ChatRecord {
  chat: Json;
  messages: ChatMessage[];
  nextMessageId: number;
}

export interface StoredFile {
  fileId: string;
  uniqueId: string;
  path: string;
  bytes: Buffer;
  fileName?: string;
}

const MAX_TEXT = 4096;
const MAX_CAPTION = 1024;
const MAX_DOWNLOAD = 20 * 1024 * 1024;
const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";
const FILE_METHODS: Record<string, ChatMessage["kind"]> = {
  sendphoto: "photo",
  senddocument: "document",
  sendvoice: "voice",
  sendaudio: "audio",
  sendvideo: "video",
  sendanimation: "animation",
};
const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);

const now = (): number => Math.floor(Date.now() / 1000);

function userJson(spec: { userId: number; userName?: string; userHandle?: string }): Json {
  return {
    id: spec.userId,
    is_bot: false,
    first_name: spec.userName ?? `User${spec.userId}`,
    ...(spec.userHandle ? { username: spec.userHandle } : {}),
  };
}

/** The entities the client marks in what a user types: a leading /command and @mentions. */
function entitiesOf(text: string): Json[] {
  const entities: Json[] = [];
  const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(text);
  if (command) entities.push({ type: "bot_command", offset: 0, length: command[0].length });
  for (const m of text.matchAll(/(^|[^\w/])(@[A-Za-z0-9_]{3,32})/g))
    entities.push({ type: "mention", offset: m.index + m[1]!.length, length: m[2]!.length });
  return entities;
}

export class FakeChats {
  private readonly chats = new Map<string, ChatRecord>();
  private readonly files = new Map<string, StoredFile>();
  private readonly filesByPath = new Map<string, StoredFile>();
  private readonly callbackQueries = new Map<string, { answered: boolean; text?: string }>();
  private commands: unknown[] = [];
  private nextFile = 1;
  /** The Bot API methods on chats, keyed by lower-case name. */
  readonly methods: Record<string, BotMethod>;

  constructor(private readonly botUser: BotUser) {
    this.methods = this.buildMethods();
  }

  messagesIn(chatId: number | string): ChatMessage[] {
    return (this.chats.get(String(chatId))?.messages ?? []).map((m) => ({ ...m }));
  }

  fileAt(path: string): StoredFile | undefined {
    return this.filesByPath.get(path);
  }

  callbackAnswer(id: string): { answered: boolean; text?: string } | undefined {
    const q = this.callbackQueries.get(id);
    return q ? { ...q } : undefined;
  }

  /** A user writes in a chat: the message appears there; returns the update's payload. */
  userMessage(spec: UserMessageSpec): { messageId: number; update: Json } {
    const type = spec.chatType ?? "private";
    const user = userJson(spec);
    const record = this.ensureChat(spec.chatId, type, user, spec.threadId !== undefined);
    const replyTo =
      spec.replyToBot === true
        ? record.messages.findLast((m) => m.from === "bot")?.messageId
        : typeof spec.replyToBot === "number"
          ? spec.replyToBot
          : undefined;
    const { kind, file, media } = this.userMedia(spec);
    const message: ChatMessage = {
      messageId: record.nextMessageId++,
      chatId: String(spec.chatId),
      from: "user",
      userId: spec.userId,
      kind,
      text: spec.text,
      edits: 0,
      ...(spec.threadId !== undefined ? { threadId: spec.threadId } : {}),
      ...(replyTo !== undefined ? { replyTo } : {}),
      ...(file ? { file: this.fileOfMessage(file) } : {}),
    };
    record.messages.push(message);
    const json: Json = {
      message_id: message.messageId,
      date: now(),
      chat: record.chat,
      ...(type === "channel" ? { sender_chat: record.chat } : { from: user }),
      ...(spec.threadId !== undefined ? { message_thread_id: spec.threadId, is_topic_message: true } : {}),
      ...media,
    };
    const entities = entitiesOf(spec.text);
    if (kind === "text") Object.assign(json, { text: spec.text }, entities.length ? { entities } : {});
    else if (spec.text)
      Object.assign(json, { caption: spec.text }, entities.length ? { caption_entities: entities } : {});
    const replied = replyTo !== undefined ? record.messages.find((m) => m.messageId === replyTo) : undefined;
    if (replied)
      json.reply_to_message = {
        message_id: replied.messageId,
        date: now(),
        chat: record.chat,
        from: replied.from === "bot" ? this.botUser : userJson({ userId: replied.userId ?? 0 }),
        text: replied.text,
      };
    return {
      messageId: message.messageId,
      update: { [type === "channel" ? "channel_post" : "message"]: json },
    };
  }

  /** A user presses an inline button; throws when the message shows no such button. */
  buttonPress(spec: { chatId: number; userId: number; messageId: number; data: string }): {
    callbackQueryId: string;
    update: Json;
  } {
    const record = this.chatOf(spec.chatId);
    const message = record.messages.find((m) => m.messageId === spec.messageId);
    if (!message) throw new Error(`fake-telegram: no message ${spec.messageId} in chat ${spec.chatId}`);
    if (!message.buttons?.flat().some((b) => b.callback_data === spec.data))
      throw new Error(
        `fake-telegram: message ${spec.messageId} has no button with data ${JSON.stringify(spec.data)}`,
      );
    const callbackQueryId = String(BigInt(`0x${randomBytes(7).toString("hex")}`));
    this.callbackQueries.set(callbackQueryId, { answered: false });
    const update = {
      callback_query: {
        id: callbackQueryId,
        from: userJson(spec),
        message: this.messageJson(record, message),
        chat_instance: `ci${spec.chatId}`,
        data: spec.data,
      },
    };
    return { callbackQueryId, update };
  }

  private userMedia(spec: UserMessageSpec): { kind: ChatMessage["kind"]; file?: StoredFile; media: Json } {
    const ids = (f: StoredFile): Json => ({
      file_id: f.fileId,
      file_unique_id: f.uniqueId,
      file_size: f.bytes.length,
    });
    if (spec.photo) {
      const file = this.storeFile(spec.photo, "photos", "photo.jpg");
      // Telegram sends several sizes, smallest first: the thumbnail is a different, smaller file.
      const small = spec.photo.subarray(0, Math.max(1, Math.floor(spec.photo.length / 4)));
      const thumb = this.storeFile(small, "photos", "thumb.jpg");
      const photo = [
        { ...ids(thumb), width: 90, height: 67 },
        { ...ids(file), width: 1280, height: 960 },
      ];
      return { kind: "photo", file, media: { photo } };
    }
    if (spec.document) {
      const { bytes, fileName, mimeType } = spec.document;
      const file = this.storeFile(bytes, "documents", fileName);
      const document = { ...ids(file), file_name: fileName, ...(mimeType ? { mime_type: mimeType } : {}) };
      return { kind: "document", file, media: { document } };
    }
    if (spec.voice) {
      const file = this.storeFile(spec.voice, "voice", "voice.oga");
      return { kind: "voice", file, media: { voice: { ...ids(file), duration: 3, mime_type: "audio/ogg" } } };
    }
    return { kind: "text", media: {} };
  }

  private fileOfMessage(file: StoredFile): NonNullable<ChatMessage["file"]> {
    return { fileId: file.fileId, ...(file.fileName ? { fileName: file.fileName } : {}), bytes: file.bytes };
  }

  private chatOf(id: unknown): ChatRecord {
    const record = this.chats.get(String(id));
    if (!record) throw badRequest("chat not found");
    return record;
  }

  private ensureChat(id: number, type: TelegramChatType, user: Json, forum: boolean): ChatRecord {
    let record = this.chats.get(String(id));
    if (!record) {
      const chat: Json =
        type === "private"
          ? { id, type, first_name: user.first_name, ...(user.username ? { username: user.username } : {}) }
          : { id, type, title: `Chat ${id}`, ...(forum ? { is_forum: true } : {}) };
      record = { chat, messages: [], nextMessageId: 1 };
      this.chats.set(String(id), record);
    }
    return record;
  }

  private storeFile(bytes: Buffer, folder: string, fileName?: string): StoredFile {
    const n = this.nextFile++;
    const ext = fileName?.includes(".") ? fileName.slice(fileName.lastIndexOf(".")) : "";
    const file: StoredFile = {
      fileId: `FILE${n}_${randomBytes(8).toString("hex")}`,
      uniqueId: `U${n}`,
      path: `${folder}/file_${n}${ext}`,
      bytes,
      fileName,
    };
    this.files.set(file.fileId, file);
    this.filesByPath.set(file.path, file);
    return file;
  }

  /** The visible text of a text or caption, as the server parses and limits it. */
  private parseFormatted(text: unknown, parseMode: unknown, what: "text" | "caption"): string {
    const source = typeof text === "string" ? text : "";
    let visible = source;
    if (typeof parseMode === "string" && parseMode.toUpperCase() === "HTML") {
      const parsed = parseTelegramHtml(source);
      if ("error" in parsed) throw badRequest(`can't parse entities: ${parsed.error}`);
      visible = parsed.text;
    }
    if (what === "text" && visible.trim() === "") throw badRequest("message text is empty");
    if (what === "text" && visible.length > MAX_TEXT) throw badRequest("message is too long");
    if (what === "caption" && visible.length > MAX_CAPTION) throw badRequest("message caption is too long");
    return visible;
  }

  private parseButtons(markup: unknown): FakeButton[][] | undefined {
    if (markup === undefined || markup === null) return undefined;
    const rows = (markup as { inline_keyboard?: unknown }).inline_keyboard;
    if (!Array.isArray(rows)) return undefined; // other keyboards are not modelled
    return rows.map((row) => {
      if (!Array.isArray(row))
        throw badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
      return row.map((b: FakeButton) => {
        if (typeof b?.text !== "string" || b.text === "") throw badRequest("BUTTON_TEXT_INVALID");
        if (b.callback_data !== undefined) {
          const size = Buffer.byteLength(String(b.callback_data));
          if (size < 1 || size > 64) throw badRequest("BUTTON_DATA_INVALID");
        } else if (b.url === undefined) throw badRequest("BUTTON_TYPE_INVALID");
        return { ...b };
      });
    });
  }

  private messageJson(record: ChatRecord, m: ChatMessage): Json {
    const base: Json = {
      message_id: m.messageId,
      date: now(),
      chat: record.chat,
      ...(m.from === "bot" ? { from: this.botUser } : {}),
      ...(m.threadId !== undefined ? { message_thread_id: m.threadId, is_topic_message: true } : {}),
      ...(m.buttons ? { reply_markup: { inline_keyboard: m.buttons } } : {}),
    };
    const replied =
      m.replyTo !== undefined ? record.messages.find((x) => x.messageId === m.replyTo) : undefined;
    if (replied)
      base.reply_to_message = {
        message_id: replied.messageId,
        chat: record.chat,
        date: now(),
        text: replied.text,
      };
    if (m.kind === "text") return { ...base, text: m.text };
    const f = m.file!;
    const fileJson = { file_id: f.fileId, file_unique_id: `U${f.fileId}`, file_size: f.bytes.length };
    const media =
      m.kind === "photo"
        ? { photo: [{ ...fileJson, width: 800, height: 600 }] }
        : { [m.kind]: { ...fileJson, ...(f.fileName ? { file_name: f.fileName } : {}) } };
    return { ...base, ...media, ...(m.text ? { caption: m.text } : {}) };
  }

  private messageToEdit(p: Json): { record: ChatRecord; message: ChatMessage } {
    const record = this.chatOf(p.chat_id);
    const message = record.messages.find((m) => m.messageId === Number(p.message_id));
    if (!message) throw badRequest("message to edit not found");
    return { record, message };
  }

  /** Sets the new buttons and counts the edit; the server refuses an edit that changes nothing. */
  private applyEdit(message: ChatMessage, buttons: FakeButton[][] | undefined, sameText: boolean): void {
    if (sameText && JSON.stringify(message.buttons ?? null) === JSON.stringify(buttons ?? null))
      throw badRequest(NOT_MODIFIED);
    if (buttons) message.buttons = buttons;
    else delete message.buttons;
    message.edits++;
  }

  private replyTarget(record: ChatRecord, params: Json): number | undefined {
    const rp = params.reply_parameters as
      | { message_id?: number; allow_sending_without_reply?: boolean }
      | undefined;
    const id = rp?.message_id ?? (params.reply_to_message_id as number | undefined);
    if (id === undefined) return undefined;
    if (record.messages.some((m) => m.messageId === id)) return id;
    if (rp?.allow_sending_without_reply || params.allow_sending_without_reply) return undefined;
    throw badRequest("message to be replied not found");
  }

  private botMessage(
    params: Json,
    fields: Omit<ChatMessage, "messageId" | "chatId" | "from" | "edits">,
  ): Json {
    const record = this.chatOf(params.chat_id);
    const threadId = typeof params.message_thread_id === "number" ? params.message_thread_id : undefined;
    const replyTo = this.replyTarget(record, params);
    const buttons = this.parseButtons(params.reply_markup);
    const message: ChatMessage = {
      ...fields,
      messageId: record.nextMessageId++,
      chatId: String(record.chat.id),
      from: "bot",
      edits: 0,
      ...(threadId !== undefined ? { threadId } : {}),
      ...(replyTo !== undefined ? { replyTo } : {}),
      ...(buttons ? { buttons } : {}),
    };
    record.messages.push(message);
    return this.messageJson(record, message);
  }

  private uploadOf(params: Json, field: string, uploads: Map<string, UploadedFile>): StoredFile {
    const value = params[field];
    if (typeof value === "string" && value.startsWith("attach://")) {
      const part = uploads.get(value.slice("attach://".length));
      if (!part) throw badRequest("file must be non-empty");
      return this.storeFile(part.bytes, `${field}s`, part.fileName);
    }
    const direct = uploads.get(field);
    if (direct) return this.storeFile(direct.bytes, `${field}s`, direct.fileName);
    if (typeof value === "string" && this.files.has(value)) return this.files.get(value)!;
    throw badRequest("wrong file identifier/HTTP URL specified");
  }

  private buildMethods(): Record<string, BotMethod> {
    const methods: Record<string, BotMethod> = {
      getme: () => this.botUser,
      logout: () => true,
      close: () => true,
      sendmessage: (p) =>
        this.botMessage(p, {
          kind: "text",
          text: this.parseFormatted(p.text, p.parse_mode, "text"),
          raw: String(p.text),
          ...(typeof p.parse_mode === "string" ? { parseMode: p.parse_mode } : {}),
        }),
      editmessagetext: (p) => {
        const { record, message } = this.messageToEdit(p);
        if (message.from !== "bot" || message.kind !== "text") throw badRequest("message can't be edited");
        const text = this.parseFormatted(p.text, p.parse_mode, "text");
        const raw = String(p.text);
        const parseMode = typeof p.parse_mode === "string" ? p.parse_mode : undefined;
        const sameText = message.text === text && message.raw === raw && message.parseMode === parseMode;
        this.applyEdit(message, this.parseButtons(p.reply_markup), sameText);
        message.text = text;
        message.raw = raw;
        if (parseMode) message.parseMode = parseMode;
        else delete message.parseMode;
        return this.messageJson(record, message);
      },
      editmessagereplymarkup: (p) => {
        const { record, message } = this.messageToEdit(p);
        this.applyEdit(message, this.parseButtons(p.reply_markup), true);
        return this.messageJson(record, message);
      },
      deletemessage: (p) => {
        const record = this.chatOf(p.chat_id);
        const index = record.messages.findIndex((m) => m.messageId === Number(p.message_id));
        if (index === -1) throw badRequest("message to delete not found");
        record.messages.splice(index, 1);
        return true;
      },
      sendchataction: (p) => {
        this.chatOf(p.chat_id);
        if (typeof p.action !== "string" || !CHAT_ACTIONS.has(p.action))
          throw badRequest("wrong parameter action in request");
        return true;
      },
      answercallbackquery: (p) => {
        const query = this.callbackQueries.get(String(p.callback_query_id));
        if (!query || query.answered)
          throw badRequest("query is too old and response timeout expired or query ID is invalid");
        query.answered = true;
        if (typeof p.text === "string") query.text = p.text;
        return true;
      },
      getfile: (p) => {
        const file = this.files.get(String(p.file_id));
        if (!file) throw badRequest("invalid file_id");
        if (file.bytes.length > MAX_DOWNLOAD) throw badRequest("file is too big");
        return {
          file_id: file.fileId,
          file_unique_id: file.uniqueId,
          file_size: file.bytes.length,
          file_path: file.path,
        };
      },
      setmycommands: (p) => {
        if (!Array.isArray(p.commands)) throw badRequest('parameter "commands" is required');
        for (const c of p.commands as Array<{ command?: unknown; description?: unknown }>) {
          if (typeof c.command !== "string" || !/^[a-z0-9_]{1,32}$/.test(c.command))
            throw badRequest("BOT_COMMAND_INVALID");
          if (typeof c.description !== "string" || c.description.length < 1 || c.description.length > 256)
            throw badRequest("BOT_COMMAND_DESCRIPTION_INVALID");
        }
        this.commands = p.commands;
        return true;
      },
      getmycommands: () => this.commands,
    };
    for (const [method, kind] of Object.entries(FILE_METHODS)) {
      methods[method] = (p, uploads) => {
        const file = this.uploadOf(p, kind, uploads);
        const caption =
          p.caption === undefined ? "" : this.parseFormatted(p.caption, p.parse_mode, "caption");
        return this.botMessage(p, { kind, text: caption, file: this.fileOfMessage(file) });
      };
    }
    return methods;
  }
}
