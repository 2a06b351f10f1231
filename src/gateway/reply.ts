import type { AgentEvent } from "../agent/events.js";
import type { OutboundRecord } from "../runtime/delivery/ledger.js";
import { isParseError, type OutboundDelivery, type ReusableMessage } from "../runtime/delivery/outbound.js";
import { MIN_SPLIT_LIMIT, splitMessage } from "../runtime/delivery/split.js";
import type { DeliveryLog } from "../runtime/delivery/types.js";
import { extractMedia, progressLine } from "./delivery-media.js";
import { type OutboundTarget, type PlatformAdapter, PlatformSendError, type SendOptions } from "./types.js";

/**
 * One turn's answer in a chat. While the agent streams, the text is shown by editing a message
 * (throttled, coalesced, one platform call at a time); a preview that outgrows the platform's limit
 * is frozen and continues in a new message. Previews are only previews: the answer proper is
 * recorded in the ledger first (key `<key>:answer`), then the chat is made to show exactly it, the
 * previews edited into its chunks and the rest sent, so a crash in between resends it once at the
 * next start.
 */

export interface StreamingOptions {
  enabled: boolean;
  /** Shortest time between two preview updates (the adapter's own floor applies too). */
  editIntervalMs: number;
  /** Characters that must be there before the first preview is sent. */
  bufferThreshold: number;
}

export interface ReplyOptions {
  delivery: OutboundDelivery;
  adapter: PlatformAdapter;
  target: OutboundTarget;
  /** Idempotency base of this turn, e.g. `telegram:<updateId>`. */
  key: string;
  sessionKey?: string;
  streaming: StreamingOptions;
  log?: DeliveryLog;
}

/** A preview message in the chat and what it shows. */
interface Shown {
  messageId: string;
  text: string;
  format: SendOptions["format"];
}

/** Tool lines kept in a preview (the newest ones). */
const MAX_PROGRESS_LINES = 6;
/** Preview calls that may fail in a row before previews stop for this turn. */
const MAX_PREVIEW_FAILURES = 3;
/** What a leftover preview shows when the answer needs fewer messages than the previews took. */
const LEFTOVER_PREVIEW = "⋯";
const MAX_ERROR_CHARS = 400;

export class Reply {
  private readonly o: ReplyOptions;
  private readonly log: DeliveryLog;
  private readonly intervalMs: number;
  private readonly limit: number;
  /** Streamed text by attempt, in arrival order (a discarded attempt's entries are removed). */
  private segments: { attempt: number; text: string }[] = [];
  private progress: string[] = [];
  private shown: Shown[] = [];
  private previewFormat: SendOptions["format"] = "markdown";
  private previewFailures = 0;
  private dirty = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private lastFlushAt = 0;
  /** The platform asked to wait (429) until this time. */
  private holdUntil = 0;

  constructor(options: ReplyOptions) {
    this.o = options;
    this.log = options.log ?? (() => {});
    this.intervalMs = Math.max(options.streaming.editIntervalMs, options.adapter.minEditIntervalMs, 0);
    this.limit = Math.max(MIN_SPLIT_LIMIT, options.adapter.maxMessageLength);
  }

  /** Messages of the preview so far (ids), for tests and status. */
  get previewIds(): string[] {
    return this.shown.map((s) => s.messageId);
  }

  /** Feeds one agent event; ignored once the reply is finished or when streaming is off. Never throws. */
  onEvent(e: AgentEvent): void {
    if (this.closed || !this.o.streaming.enabled) return;
    switch (e.type) {
      case "text_delta": {
        const last = this.segments.at(-1);
        if (last && last.attempt === e.attempt) last.text += e.text;
        else this.segments.push({ attempt: e.attempt, text: e.text });
        break;
      }
      case "attempt_discarded":
        this.segments = this.segments.filter((s) => s.attempt !== e.attempt);
        break;
      case "tool_start":
        this.progress.push(progressLine(e.name, e.args));
        if (this.progress.length > MAX_PROGRESS_LINES) this.progress.shift();
        break;
      default:
        return;
    }
    this.dirty = true;
    this.schedule();
  }

  /**
   * Completes the turn with its answer: records it in the ledger FIRST, then makes the chat show
   * exactly it (previews edited into its chunks, the rest sent); `MEDIA:<path>` lines become files.
   * Delivery failures are logged, not thrown: the ledger keeps the answer for the next start.
   */
  async finish(finalText: string): Promise<void> {
    if (this.closed) return;
    await this.close();
    const { text, files } = extractMedia(finalText);
    const answerText =
      text.trim() === "" && this.shown.length > 0 && files.length === 0 ? "(no reply)" : text;
    const { delivery, target, key, sessionKey } = this.o;
    let answer: OutboundRecord;
    let fileRecords: OutboundRecord[];
    try {
      answer = await delivery.record(`${key}:answer`, target, answerText, { sessionKey });
      fileRecords = await Promise.all(
        files.map((path, i) => delivery.recordFile(`${key}:file:${i}`, target, { path }, sessionKey)),
      );
    } catch (err) {
      // No ledger (state.db unusable): the answer still goes out, without the crash guarantee.
      this.log("error", "reply: could not record the answer; sending it unrecorded", {
        key,
        error: String(err),
      });
      await this.sendUnrecorded(answerText);
      return;
    }
    // An answer sent before (this turn ran again after a restart) is in the chat already: the
    // previews of this run are all leftovers.
    const sentBefore = answer.status === "sent";
    const reuse: ReusableMessage[] = sentBefore ? [] : this.shown.map((s) => ({ ...s }));
    try {
      await delivery.complete(answer, reuse);
    } catch (err) {
      this.log("error", "reply: the answer was not delivered", { key, error: (err as Error).message });
    }
    const chunkCount = answer.body.kind === "text" && !sentBefore ? answer.body.chunks.length : 0;
    for (const extra of this.shown.slice(chunkCount)) await this.tryEdit(extra, LEFTOVER_PREVIEW);
    for (const record of fileRecords) {
      try {
        await delivery.complete(record);
      } catch (err) {
        this.log("error", "reply: a file was not delivered", {
          key: record.key,
          error: (err as Error).message,
        });
      }
    }
  }

  /** Ends the turn with a short error message (previews stay as they were). Never throws. */
  async fail(message: string): Promise<void> {
    if (this.closed) return;
    await this.close();
    const short = message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS - 1)}…` : message;
    try {
      await this.o.delivery.deliver(`${this.o.key}:error`, this.o.target, `⚠ ${short}`, {
        sessionKey: this.o.sessionKey,
        format: "plain",
      });
    } catch (err) {
      this.log("error", "reply: the error message was not delivered", {
        key: this.o.key,
        error: String(err),
      });
    }
  }

  /** Stops previews and waits for the one in flight. */
  private async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
  }

  /** Plans the next preview update: at once for the first, then no sooner than the interval allows. */
  private schedule(): void {
    if (this.closed || this.timer || this.flushing || !this.dirty) return;
    if (this.previewFailures >= MAX_PREVIEW_FAILURES) return;
    if (this.shown.length === 0 && !this.readyForFirst()) return;
    const now = Date.now();
    const wait = Math.max(0, this.lastFlushAt + this.intervalMs - now, this.holdUntil - now);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  private readyForFirst(): boolean {
    const chars = this.segments.reduce((n, s) => n + s.text.length, 0);
    return chars >= this.o.streaming.bufferThreshold || this.progress.length > 0;
  }

  private flush(): void {
    if (this.closed || !this.dirty) return;
    this.dirty = false;
    this.lastFlushAt = Date.now();
    this.flushing = this.updatePreview()
      .catch((err) =>
        this.log("warn", "reply: preview update failed", { key: this.o.key, error: String(err) }),
      )
      .finally(() => {
        this.flushing = undefined;
        this.schedule();
      });
  }

  /** The preview as messages: the streamed text split at the limit, tool lines under the last part. */
  private previewChunks(): string[] {
    const body = this.segments.map((s) => s.text).join("");
    const chunks = body.trim() === "" ? [] : splitMessage(body, this.limit);
    if (this.progress.length === 0) return chunks;
    const tools = this.progress.join("\n");
    const last = chunks.pop();
    const combined = last ? `${last}\n\n${tools}` : tools;
    chunks.push(combined.length <= this.limit ? combined : (last ?? tools.slice(-this.limit)));
    return chunks;
  }

  /** Brings the chat's preview messages to the current text (one platform call at a time). */
  private async updatePreview(): Promise<void> {
    const desired = this.previewChunks();
    for (let i = 0; i < desired.length; i++) {
      const text = desired[i]!;
      const shown = this.shown[i];
      if (shown && shown.text === text) continue;
      const ok = shown
        ? await this.previewCall(() => this.editShown(shown, text))
        : await this.previewCall(() => this.sendPreview(text));
      if (!ok) return;
    }
    // An attempt was withdrawn and the preview shrank: messages past its end show nothing of it.
    for (const extra of this.shown.slice(desired.length)) {
      if (
        extra.text !== LEFTOVER_PREVIEW &&
        !(await this.previewCall(() => this.editShown(extra, LEFTOVER_PREVIEW)))
      )
        return;
    }
  }

  private async sendPreview(text: string): Promise<void> {
    const format = this.previewFormat;
    const { messageId } = await this.o.adapter.send(this.o.target, text, { format });
    this.shown.push({ messageId, text, format });
  }

  private async editShown(shown: Shown, text: string): Promise<void> {
    const format = this.previewFormat;
    await this.o.adapter.edit(this.o.target, shown.messageId, text, { format });
    shown.text = text;
    shown.format = format;
  }

  /**
   * Runs one preview call. A parse failure switches previews to plain text and tries again; a 429
   * holds previews for the time asked; other failures are counted and, past a few, stop previews
   * (the answer is delivered in full by finish()). False when the update should stop here.
   */
  private async previewCall(call: () => Promise<void>): Promise<boolean> {
    try {
      await call();
      this.previewFailures = 0;
      return true;
    } catch (err) {
      const e = err instanceof PlatformSendError ? err : new PlatformSendError(String(err), true);
      if (isParseError(e) && this.previewFormat !== "plain") {
        this.previewFormat = "plain";
        return this.previewCall(call);
      }
      // A 429 paces previews rather than failing them.
      if (e.retryAfter !== undefined) this.holdUntil = Date.now() + e.retryAfter * 1000;
      else this.previewFailures++;
      this.dirty = true;
      this.log("warn", "reply: preview update failed", { key: this.o.key, error: e.message });
      return false;
    }
  }

  private async tryEdit(shown: Shown, text: string): Promise<void> {
    if (shown.text === text) return;
    try {
      await this.o.adapter.edit(this.o.target, shown.messageId, text, { format: "plain" });
      shown.text = text;
    } catch (err) {
      this.log("warn", "reply: could not clear a leftover preview", { key: this.o.key, error: String(err) });
    }
  }

  private async sendUnrecorded(text: string): Promise<void> {
    for (const chunk of splitMessage(text, this.limit)) {
      try {
        await this.o.adapter.send(this.o.target, chunk);
      } catch (err) {
        this.log("error", "reply: unrecorded send failed", { key: this.o.key, error: String(err) });
        return;
      }
    }
  }
}
