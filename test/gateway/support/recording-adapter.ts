import {
  type InboundSink,
  type OutboundFile,
  type OutboundTarget,
  type PlatformAdapter,
  PlatformSendError,
  type SendOptions,
} from "../../../src/gateway/types.js";

/**
 * A platform adapter for the delivery unit tests: it keeps the chat as a list of messages (what a
 * user would see), records every call, and fails on demand (retryable, 429 with retry-after,
 * permanent, markdown parse error) or answers slowly.
 */

export type Method = "send" | "edit" | "sendFile";

export interface Call {
  method: Method;
  chatId: string;
  text?: string;
  messageId?: string;
  options?: SendOptions;
  file?: OutboundFile;
  /** Date.now() when the call started and ended. */
  startedAt: number;
  endedAt: number;
  /** The error thrown, when the call failed. */
  error?: string;
}

export type Failure =
  | { kind: "retryable" }
  | { kind: "rate_limit"; retryAfter: number }
  | { kind: "permanent"; message?: string }
  | { kind: "parse" };

interface FailureRule {
  method: Method;
  failure: Failure;
  /** How many calls fail (default 1). */
  times: number;
  /** Only calls whose text (or options) match fail. */
  when?: (text: string, options: SendOptions | undefined) => boolean;
}

export interface ChatMessage {
  id: string;
  chatId: string;
  text: string;
  format?: SendOptions["format"];
  file?: OutboundFile;
  edits: number;
}

export class RecordingAdapter implements PlatformAdapter {
  readonly name: string;
  readonly maxMessageLength: number;
  readonly minEditIntervalMs: number;
  /** Every call, failed ones included, in order. */
  readonly calls: Call[] = [];
  /** The chat as the user sees it, in the order messages were sent. */
  readonly messages: ChatMessage[] = [];
  /** Milliseconds each call takes. */
  delayMs = 0;
  private rules: FailureRule[] = [];
  private nextId = 1;
  private inFlight = 0;
  /** The most calls that ran at the same time. */
  maxInFlight = 0;

  constructor(
    o: { name?: string; maxMessageLength?: number; minEditIntervalMs?: number; firstId?: number } = {},
  ) {
    this.name = o.name ?? "recording";
    this.maxMessageLength = o.maxMessageLength ?? 4096;
    this.minEditIntervalMs = o.minEditIntervalMs ?? 0;
    this.nextId = o.firstId ?? 1;
  }

  /** The next `times` calls of `method` (matching `when`) fail with `failure`. */
  fail(method: Method, failure: Failure, times = 1, when?: FailureRule["when"]): void {
    this.rules.push({ method, failure, times, when });
  }

  async start(_sink: InboundSink): Promise<void> {}
  async stop(): Promise<void> {}

  async send(target: OutboundTarget, text: string, options?: SendOptions): Promise<{ messageId: string }> {
    return this.call({ method: "send", chatId: target.chatId, text, options }, () => {
      if (text.length > this.maxMessageLength) {
        throw new PlatformSendError(`message is too long (${text.length} > ${this.maxMessageLength})`, false);
      }
      const id = String(this.nextId++);
      this.messages.push({ id, chatId: target.chatId, text, format: options?.format, edits: 0 });
      return { messageId: id };
    });
  }

  async edit(target: OutboundTarget, messageId: string, text: string, options?: SendOptions): Promise<void> {
    await this.call({ method: "edit", chatId: target.chatId, text, messageId, options }, () => {
      const m = this.messages.find((x) => x.id === messageId && x.chatId === target.chatId);
      if (!m) throw new PlatformSendError("message to edit not found", false);
      if (text.length > this.maxMessageLength) throw new PlatformSendError("message is too long", false);
      m.text = text;
      m.format = options?.format;
      m.edits++;
    });
  }

  async sendFile(target: OutboundTarget, file: OutboundFile): Promise<{ messageId: string }> {
    return this.call({ method: "sendFile", chatId: target.chatId, file }, () => {
      const id = String(this.nextId++);
      this.messages.push({ id, chatId: target.chatId, text: "", file, edits: 0 });
      return { messageId: id };
    });
  }

  /** Texts of the chat's messages, in order. */
  texts(chatId?: string): string[] {
    return this.messages.filter((m) => chatId === undefined || m.chatId === chatId).map((m) => m.text);
  }

  /** Successful calls of one method. */
  done(method: Method): Call[] {
    return this.calls.filter((c) => c.method === method && c.error === undefined);
  }

  private async call<T>(info: Omit<Call, "startedAt" | "endedAt">, run: () => T): Promise<T> {
    const call: Call = { ...info, startedAt: Date.now(), endedAt: 0 };
    this.calls.push(call);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      const failure = this.takeFailure(info.method, info.text ?? "", info.options);
      if (failure) throw toError(failure);
      return run();
    } catch (err) {
      call.error = (err as Error).message;
      throw err;
    } finally {
      call.endedAt = Date.now();
      this.inFlight--;
    }
  }

  private takeFailure(method: Method, text: string, options: SendOptions | undefined): Failure | undefined {
    const rule = this.rules.find(
      (r) => r.method === method && r.times > 0 && (!r.when || r.when(text, options)),
    );
    if (!rule) return undefined;
    rule.times--;
    return rule.failure;
  }
}

function toError(f: Failure): PlatformSendError {
  switch (f.kind) {
    case "retryable":
      return new PlatformSendError("connection reset", true);
    case "rate_limit":
      return new PlatformSendError("Too Many Requests", true, f.retryAfter);
    case "permanent":
      return new PlatformSendError(f.message ?? "Forbidden: bot was blocked by the user", false);
    case "parse":
      return new PlatformSendError("Bad Request: can't parse entities: unclosed tag", false);
  }
}
