/**
 * What outbound delivery needs of a platform, below every front end: the gateway's chat adapters
 * implement it, and so can anything else that sends to a chat (scheduled jobs, a platform added
 * later). Sending goes through the delivery ledger (outbound.ts), never to a channel directly.
 */

/** Where a message goes. */
export interface OutboundTarget {
  chatId: string;
  threadId?: string;
  /** Reply to this platform message id. */
  replyTo?: string;
}

/** An inline button; its press comes back to the front end with `data`. */
export interface Button {
  text: string;
  data: string;
}

export interface SendOptions {
  /** Rows of buttons under the message (approvals, clarify choices). */
  buttons?: Button[][];
  /** The text is markdown from the model (rendered in the platform's format) or plain. */
  format?: "markdown" | "plain";
}

export interface OutboundFile {
  path: string;
  /** photo, document, voice (ogg/opus), audio, video; chosen from the file's type when absent. */
  kind?: "photo" | "document" | "voice" | "audio" | "video";
  caption?: string;
}

/** A platform send that failed: `retryable` says whether a later attempt may succeed. */
export class PlatformSendError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** Seconds the platform asked to wait (429). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "PlatformSendError";
  }
}

/** A platform as delivery sees it: where messages of one platform name go. */
export interface DeliveryChannel {
  /** telegram, webhook, ... (the ledger's platform column). */
  readonly name: string;
  /** The longest text one message may carry (Telegram: 4096). */
  readonly maxMessageLength: number;
  /** Sends one message (text within maxMessageLength); resolves with its platform id. Throws PlatformSendError. */
  send(target: OutboundTarget, text: string, options?: SendOptions): Promise<{ messageId: string }>;
  /** Replaces the text (and buttons) of a message the bot sent. Throws PlatformSendError. */
  edit(target: OutboundTarget, messageId: string, text: string, options?: SendOptions): Promise<void>;
  /** Sends a file (a `MEDIA:` path). Throws PlatformSendError. */
  sendFile?(target: OutboundTarget, file: OutboundFile): Promise<{ messageId: string }>;
}

export type DeliveryLog = (
  level: "info" | "warn" | "error",
  message: string,
  fields?: Record<string, unknown>,
) => void;
