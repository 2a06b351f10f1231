/**
 * The seam between the gateway and its platforms. An adapter turns a platform's updates into
 * `InboundMessage`s and sends what the gateway gives it; everything else (who may talk, sessions,
 * lanes, streaming, approvals) lives in the gateway, and the delivery ledger below it
 * (runtime/delivery), the same for every platform. Adapters load lazily: a platform's SDK is
 * imported only when that platform is on.
 */

import type { DeliveryChannel, OutboundTarget } from "../runtime/delivery/types.js";

// Outbound delivery lives below the front ends (runtime/delivery); adapters keep one place to import from.
export {
  type Button,
  type DeliveryChannel,
  type OutboundFile,
  type OutboundTarget,
  PlatformSendError,
  type SendOptions,
} from "../runtime/delivery/types.js";

export type ChatType = "dm" | "group" | "channel";

/** A file that came with a message, already downloaded to a local path. */
export interface InboundAttachment {
  kind: "image" | "document" | "voice" | "audio" | "video";
  path: string;
  fileName?: string;
  mimeType?: string;
  bytes?: number;
}

/** One update from a platform: a message, or a button press (`action`). */
export interface InboundMessage {
  platform: string;
  /** The platform's unique id of this update (Telegram's update_id): deduplicated across restarts. */
  updateId: string;
  chatId: string;
  chatType: ChatType;
  /** Forum topic / thread, when the platform has them. */
  threadId?: string;
  userId: string;
  /** Display name, for context in the user message ("Alice: ..."). */
  userName?: string;
  /** The platform's handle (@name), matched by allowlists besides the id. */
  userHandle?: string;
  /** The platform's id of the message, for replies. */
  messageId?: string;
  text: string;
  /** In a group: the bot was mentioned, or the message replies to one of the bot's. */
  addressed?: boolean;
  attachments?: InboundAttachment[];
  /** A button press: the `data` of the button (see `Button`), with `text` empty. */
  action?: { data: string; callbackId?: string };
  /** Milliseconds since the epoch. */
  receivedAt: number;
  /**
   * Set by the gateway when a turn starts on the message: the user message as the model got it
   * (sender, saved attachments). A turn run again after a restart reuses it.
   */
  preparedText?: string;
  /** The turn's answer goes to this chat instead of the message's own (a webhook route's `deliver`). */
  deliverTo?: ChatAddress;
  /** Skills whose instructions the turn gets before the text (a webhook route's `skills`). */
  skills?: string[];
}

/** A chat of one of the gateway's platforms. */
export interface ChatAddress {
  platform: string;
  chatId: string;
  threadId?: string;
}

/** Where messages to `chat` go on its platform. */
export const chatTarget = (chat: ChatAddress): OutboundTarget => ({
  chatId: chat.chatId,
  ...(chat.threadId ? { threadId: chat.threadId } : {}),
});

/**
 * What became of an update handed to the gateway. Every status but `unavailable` means: confirm the
 * update to the platform (it is recorded, or there is nothing to record). `unavailable` means it
 * could not be recorded now: the adapter must NOT confirm it, so the platform delivers it again
 * (Telegram: the polling offset stays; an HTTP sender gets a 503 with Retry-After).
 */
export type InboundReceipt =
  /** Recorded for the first time (or, a button press, handled at once): it will be answered. */
  | { status: "accepted" }
  /** Recorded before: a redelivery or a replay; nothing runs again. */
  | { status: "duplicate" }
  /** Not for the agent (a stranger, a group message not addressed to the bot): nothing recorded. */
  | { status: "ignored" }
  | { status: "unavailable"; retryAfterSeconds: number; reason: string };

/** The files of a message, fetched on demand; failures come back as notes for the user message. */
export type AttachmentFetch = () => Promise<{ attachments: InboundAttachment[]; notes: string[] }>;

/**
 * What an adapter passes each update to. The gateway authorizes the sender first, and only then
 * calls `fetchAttachments` (a stranger's files are never downloaded) and records the message.
 * Resolves once the update is durably recorded (or needs no record); never throws.
 */
export interface InboundSink {
  (message: InboundMessage, fetchAttachments?: AttachmentFetch): Promise<InboundReceipt>;
  /** The gateway the sink belongs to; absent when the adapter runs on its own (`hermes send`, tests). */
  readonly gateway?: GatewayLink;
}

/**
 * What an adapter may ask of its gateway besides taking updates: webhook routes deliver to other
 * platforms' chats and load skills, and check at start that those exist.
 */
export interface GatewayLink {
  /** The chat platforms of this gateway, connected or not. */
  platforms(): string[];
  /** Why the skill `name` cannot be loaded (not found, disabled), or undefined when it can. */
  skillProblem(name: string): string | undefined;
  /**
   * Sends `text` to `target` on `platform` through the delivery ledger, once per `key`: a key sent
   * before is not sent again (`repeated`). One attempt; throws DeliveryError when it is not sent
   * (a passing failure leaves it pending: the same key later, or the next start, finishes it).
   */
  deliverNow(
    platform: string,
    target: OutboundTarget,
    text: string,
    key: string,
  ): Promise<{ repeated: boolean }>;
}

/** A chat platform: where its updates come from (start) and where delivery sends (DeliveryChannel). */
export interface PlatformAdapter extends DeliveryChannel {
  /** telegram, webhook, api_server, ... (the config key under `platforms`). */
  readonly name: string;
  /**
   * Shortest time between two edits of one message, in ms (streaming is throttled to it);
   * Infinity for a platform that cannot edit a sent message: its answers are not streamed.
   */
  readonly minEditIntervalMs: number;
  /** Connects and starts delivering updates to `sink`; resolves once connected. */
  start(sink: InboundSink): Promise<void>;
  /** Stops receiving; resolves once no update is in flight from the platform. */
  stop(): Promise<void>;
  /** Shows "typing..." for a few seconds. */
  sendTyping?(target: OutboundTarget): Promise<void>;
  /** Acknowledges a button press (stops the client's spinner), optionally with a short toast. */
  answerAction?(callbackId: string, text?: string): Promise<void>;
}

/** Builds an adapter from config and environment; imported only when the platform is on. */
export interface AdapterContext {
  /** `platforms.<name>` merged with its `extra` block. */
  settings: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** Where downloaded attachments go (a per-platform folder under HERMES_HOME/cache). */
  downloadDir: string;
  maxInboundBytes: number;
  log: (level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
}

export type AdapterFactory = (context: AdapterContext) => Promise<PlatformAdapter> | PlatformAdapter;

/**
 * A service that runs inside the gateway process beside the chat platforms but answers its own
 * requests (the API server): it shares the gateway's runtime and stops with it.
 */
export interface GatewayService {
  readonly name: string;
  /** Starts listening; resolves once it is. */
  start(): Promise<void>;
  /** Stops accepting work, gives running work up to `drainMs`, then ends it. */
  stop(drainMs: number): Promise<void>;
  /** What `hermes gateway status` shows of it (address, runs in flight, last error). */
  status(): Record<string, unknown>;
}
