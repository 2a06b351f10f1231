import type {
  AttachmentFetch,
  InboundMessage,
  InboundReceipt,
  InboundSink,
  OutboundTarget,
  PlatformAdapter,
  SendOptions,
} from "../../../src/gateway/types.js";

/** A message the bot sent, as the chat shows it now (edits applied). */
export interface ChatMessageView {
  id: string;
  target: OutboundTarget;
  text: string;
  options: SendOptions | undefined;
  /** Every text it showed, first to last. */
  history: string[];
}

export interface SayOptions {
  chatId?: string;
  userId?: string;
  userName?: string;
  chatType?: InboundMessage["chatType"];
  threadId?: string;
  addressed?: boolean;
  updateId?: string;
  attachments?: InboundMessage["attachments"];
}

/**
 * A chat platform in memory, for the runner's tests: it records what the gateway sends and edits,
 * and lets a test push user messages and button presses through the same sink a real adapter uses.
 */
export class MemoryAdapter implements PlatformAdapter {
  readonly maxMessageLength: number;
  readonly minEditIntervalMs = 0;
  readonly messages: ChatMessageView[] = [];
  readonly typing: OutboundTarget[] = [];
  readonly answered: { callbackId: string; text: string | undefined }[] = [];
  started = 0;
  stopped = 0;
  private sink: InboundSink | undefined;
  private nextId = 1;
  private nextUpdate = 1;

  constructor(
    readonly name = "memchat",
    options: { maxMessageLength?: number } = {},
  ) {
    this.maxMessageLength = options.maxMessageLength ?? 4096;
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    this.started += 1;
  }

  async stop(): Promise<void> {
    this.sink = undefined;
    this.stopped += 1;
  }

  async send(target: OutboundTarget, text: string, options?: SendOptions): Promise<{ messageId: string }> {
    const id = String(this.nextId++);
    this.messages.push({ id, target, text, options, history: [text] });
    return { messageId: id };
  }

  async edit(_target: OutboundTarget, messageId: string, text: string, options?: SendOptions): Promise<void> {
    const m = this.messages.find((x) => x.id === messageId);
    if (!m) throw new Error(`no message ${messageId}`);
    m.text = text;
    m.options = options;
    m.history.push(text);
  }

  async sendTyping(target: OutboundTarget): Promise<void> {
    this.typing.push(target);
  }

  async answerAction(callbackId: string, text?: string): Promise<void> {
    this.answered.push({ callbackId, text });
  }

  /** Delivers an update as the platform would; resolves with the gateway's receipt once it recorded it. */
  async push(m: InboundMessage, fetchAttachments?: AttachmentFetch): Promise<InboundReceipt> {
    if (!this.sink) throw new Error("adapter not started");
    return this.sink(m, fetchAttachments);
  }

  /** A user message (DM from user u1 in chat c1 unless told otherwise); returns the update sent. */
  async say(text: string, o: SayOptions = {}): Promise<InboundMessage> {
    const userId = o.userId ?? "u1";
    const m: InboundMessage = {
      platform: this.name,
      updateId: o.updateId ?? `upd-${this.nextUpdate++}`,
      chatId: o.chatId ?? `c-${userId}`,
      chatType: o.chatType ?? "dm",
      userId,
      text,
      receivedAt: Date.now(),
      messageId: `in-${this.nextUpdate}`,
      ...(o.userName ? { userName: o.userName } : {}),
      ...(o.threadId ? { threadId: o.threadId } : {}),
      ...(o.addressed !== undefined ? { addressed: o.addressed } : {}),
      ...(o.attachments ? { attachments: o.attachments } : {}),
    };
    await this.push(m);
    return m;
  }

  /** A press of the button carrying `data` under one of the bot's messages. */
  async press(data: string, o: { chatId?: string; userId?: string } = {}): Promise<void> {
    const userId = o.userId ?? "u1";
    await this.push({
      platform: this.name,
      updateId: `upd-${this.nextUpdate++}`,
      chatId: o.chatId ?? `c-${userId}`,
      chatType: "dm",
      userId,
      text: "",
      action: { data, callbackId: `cb-${this.nextUpdate}` },
      receivedAt: Date.now(),
    });
  }

  /** What the chat shows now, oldest first. */
  texts(chatId?: string): string[] {
    return this.messages.filter((m) => chatId === undefined || m.target.chatId === chatId).map((m) => m.text);
  }

  /** Resolves once `predicate` holds (checked every few ms); rejects after `timeoutMs` saying what it waited for. */
  async waitFor(predicate: () => boolean, what = "condition", timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; chat shows: ${JSON.stringify(this.texts())}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Resolves once a message of the chat contains `text`. */
  waitForText(text: string, chatId?: string): Promise<void> {
    return this.waitFor(() => this.texts(chatId).some((t) => t.includes(text)), `"${text}"`);
  }
}
