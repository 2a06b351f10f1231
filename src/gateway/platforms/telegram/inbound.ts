/**
 * Telegram updates as the gateway's InboundMessage: chat types, forum topics, who sent it, whether
 * a group message is addressed to the bot, button presses, and the files to download.
 */
import type { Message, Update } from "grammy/types";
import type { ChatType, InboundMessage } from "../../types.js";
import type { TelegramFileRef } from "./files.js";

export interface BotIdentity {
  id: number;
  username: string;
}

/** An update the gateway handles, before its files are downloaded. */
export interface MappedUpdate {
  message: Omit<InboundMessage, "attachments" | "receivedAt">;
  files: TelegramFileRef[];
}

const CHAT_TYPES: Record<string, ChatType> = {
  private: "dm",
  group: "group",
  supergroup: "group",
  channel: "channel",
};

/** Maps one update; undefined for kinds the gateway ignores (edits, joins, polls, ...). */
export function mapUpdate(update: Update, bot: BotIdentity): MappedUpdate | undefined {
  const updateId = String(update.update_id);
  const query = update.callback_query;
  if (query) {
    const origin = query.message;
    if (!origin || query.data === undefined) return undefined; // inline-mode and game buttons
    const threadId = "message_thread_id" in origin ? topicOf(origin) : undefined;
    return {
      message: {
        platform: "telegram",
        updateId,
        chatId: String(origin.chat.id),
        chatType: CHAT_TYPES[origin.chat.type] ?? "dm",
        ...(threadId !== undefined ? { threadId: String(threadId) } : {}),
        userId: String(query.from.id),
        userName: fullName(query.from),
        ...(query.from.username ? { userHandle: query.from.username } : {}),
        messageId: String(origin.message_id),
        text: "",
        addressed: true,
        action: { data: query.data, callbackId: query.id },
      },
      files: [],
    };
  }
  const message = update.message ?? update.channel_post;
  if (!message) return undefined;
  const chatType = CHAT_TYPES[message.chat.type] ?? "dm";
  const sender = message.from;
  const userId = String(sender?.id ?? message.sender_chat?.id ?? message.chat.id);
  const rawText = message.text ?? message.caption ?? "";
  const text = normalizeCommand(rawText, bot.username);
  return {
    message: {
      platform: "telegram",
      updateId,
      chatId: String(message.chat.id),
      chatType,
      ...(topicOf(message) !== undefined ? { threadId: String(topicOf(message)) } : {}),
      userId,
      userName: sender ? fullName(sender) : (message.chat.title ?? userId),
      ...(sender?.username ? { userHandle: sender.username } : {}),
      messageId: String(message.message_id),
      text,
      addressed: chatType === "dm" || isAddressed(message, rawText, bot),
    },
    files: fileRefs(message, updateId),
  };
}

/**
 * The forum topic a message belongs to. Replies in ordinary groups carry a message_thread_id too,
 * but sending into it fails there: only real topics count.
 */
function topicOf(message: Message): number | undefined {
  return message.is_topic_message ? message.message_thread_id : undefined;
}

function fullName(user: { first_name: string; last_name?: string }): string {
  return user.last_name ? `${user.first_name} ${user.last_name}` : user.first_name;
}

/** `/stop@hermes_bot args` → `/stop args`, so commands read the same in groups and DMs. */
function normalizeCommand(text: string, username: string): string {
  const m = /^(\/[A-Za-z0-9_]+)@([A-Za-z0-9_]+)/.exec(text);
  if (!m || m[2]!.toLowerCase() !== username.toLowerCase()) return text;
  return m[1]! + text.slice(m[0].length);
}

/** In a group: mentioned by @name, replied to, or commanded as /cmd@name. */
function isAddressed(message: Message, text: string, bot: BotIdentity): boolean {
  const name = bot.username.toLowerCase();
  if (message.reply_to_message?.from?.id === bot.id) return true;
  const entities = message.entities ?? message.caption_entities ?? [];
  for (const e of entities) {
    const part = text.slice(e.offset, e.offset + e.length).toLowerCase();
    if (e.type === "mention" && part === `@${name}`) return true;
    if (e.type === "text_mention" && e.user.id === bot.id) return true;
    if (e.type === "bot_command" && part.endsWith(`@${name}`)) return true;
  }
  // Without entities (a hand-made update), look at the text itself.
  return new RegExp(`(^|[^\\w])@${escapeRegExp(name)}(?![\\w])`, "i").test(text);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The fields every Telegram file object has (photo sizes have no name or type). */
interface FileFields {
  file_id: string;
  file_size?: number;
  file_name?: string;
  mime_type?: string;
}

function fileRefs(message: Message, updateId: string): TelegramFileRef[] {
  const refs: TelegramFileRef[] = [];
  const add = (
    kind: TelegramFileRef["kind"],
    file: FileFields | undefined,
    fallbackName: string,
    mime?: string,
  ) => {
    if (!file) return;
    const mimeType = file.mime_type ?? mime;
    refs.push({
      kind,
      fileId: file.file_id,
      fileName: file.file_name || fallbackName,
      ...(mimeType ? { mimeType } : {}),
      ...(file.file_size !== undefined ? { size: file.file_size } : {}),
    });
  };
  // Photos come in several sizes, smallest first.
  add("image", message.photo?.at(-1), `photo-${updateId}.jpg`);
  const doc = message.document;
  add(doc?.mime_type?.startsWith("image/") ? "image" : "document", doc, `document-${updateId}`);
  add("voice", message.voice, `voice-${updateId}.ogg`, "audio/ogg");
  add("audio", message.audio, `audio-${updateId}.mp3`);
  add("video", message.video ?? message.video_note, `video-${updateId}.mp4`);
  return refs;
}
