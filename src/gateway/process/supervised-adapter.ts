/**
 * A platform adapter that may fail to connect without holding the gateway up: its start resolves
 * within the connect timeout either way, and a platform that did not connect is rebuilt and retried
 * with backoff while the other platforms run.
 */
import { runAsSource } from "../../core/fault-source.js";
import type { GatewayLog } from "../services.js";
import type { InboundSink, OutboundFile, OutboundTarget, PlatformAdapter, SendOptions } from "../types.js";
import { errorText } from "./describe.js";

export interface SupervisedAdapterOptions {
  /** Builds a fresh adapter for each retry (a failed one is stopped and dropped). */
  build: () => Promise<PlatformAdapter>;
  connectTimeoutMs: number;
  log: GatewayLog;
  /** Called when the connection state changes (status file, console line). */
  onChange?: (adapter: SupervisedAdapter) => void;
  /** Backoff between attempts: first wait and cap (default 5 s, 5 min). */
  retryInitialMs?: number;
  retryMaxMs?: number;
}

/** How long a failed attempt's stop() may take before it is abandoned. */
const STOP_ATTEMPT_MS = 5_000;

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve("timeout"), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });

export class SupervisedAdapter implements PlatformAdapter {
  connected = false;
  lastError: string | undefined;
  /** Failed attempts since the last successful connect. */
  failures = 0;
  private inner: PlatformAdapter;
  private sink: InboundSink | undefined;
  private stopped = false;
  private generation = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly options: SupervisedAdapterOptions;

  constructor(first: PlatformAdapter, options: SupervisedAdapterOptions) {
    this.inner = first;
    this.options = options;
  }

  get name(): string {
    return this.inner.name;
  }
  get maxMessageLength(): number {
    return this.inner.maxMessageLength;
  }
  get minEditIntervalMs(): number {
    return this.inner.minEditIntervalMs;
  }
  /** The adapter currently in use (its own description, e.g. the bot's @name). */
  get current(): PlatformAdapter {
    return this.inner;
  }

  /** Resolves within the connect timeout whether or not the platform connected; never throws. */
  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    this.stopped = false;
    await this.attempt();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.generation++;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const wasConnected = this.connected;
    this.connected = false;
    try {
      await this.inner.stop();
    } catch (err) {
      this.options.log("warn", "platform stop failed", { platform: this.name, error: errorText(err) });
    }
    if (wasConnected) this.options.onChange?.(this);
  }

  send(target: OutboundTarget, text: string, options?: SendOptions): Promise<{ messageId: string }> {
    return this.inner.send(target, text, options);
  }
  edit(target: OutboundTarget, messageId: string, text: string, options?: SendOptions): Promise<void> {
    return this.inner.edit(target, messageId, text, options);
  }
  sendFile(target: OutboundTarget, file: OutboundFile): Promise<{ messageId: string }> {
    if (!this.inner.sendFile) return Promise.reject(new Error(`${this.name} cannot send files`));
    return this.inner.sendFile(target, file);
  }
  async sendTyping(target: OutboundTarget): Promise<void> {
    await this.inner.sendTyping?.(target);
  }
  async answerAction(callbackId: string, text?: string): Promise<void> {
    await this.inner.answerAction?.(callbackId, text);
  }

  private async attempt(): Promise<void> {
    const sink = this.sink;
    if (this.stopped || !sink) return;
    const generation = ++this.generation;
    const adapter = this.inner;
    // What the adapter starts (its sockets, its polling) is its own, for the crash guard.
    const pending = runAsSource(`adapter:${adapter.name}`, () => adapter.start(sink));
    let outcome: unknown;
    try {
      outcome = await withTimeout(pending, this.options.connectTimeoutMs);
    } catch (err) {
      outcome = err instanceof Error ? err : new Error(String(err));
    }
    if (generation !== this.generation) return; // stopped meanwhile
    if (outcome === "timeout" || outcome instanceof Error) {
      // An attempt that ends after its timeout is abandoned; its late result must not count.
      pending.catch(() => undefined);
      const why =
        outcome === "timeout"
          ? `did not connect within ${this.options.connectTimeoutMs / 1000} s`
          : errorText(outcome);
      this.fail(adapter, why);
      return;
    }
    const changed = !this.connected;
    this.connected = true;
    this.failures = 0;
    this.lastError = undefined;
    if (changed) this.options.onChange?.(this);
  }

  private fail(adapter: PlatformAdapter, why: string): void {
    this.connected = false;
    this.failures++;
    this.lastError = why;
    const initial = this.options.retryInitialMs ?? 5_000;
    const delay = Math.min(initial * 2 ** (this.failures - 1), this.options.retryMaxMs ?? 300_000);
    this.options.log("error", "platform failed to connect", {
      platform: this.name,
      error: why,
      retryInMs: delay,
      failures: this.failures,
    });
    this.options.onChange?.(this);
    void withTimeout(
      adapter.stop().catch(() => undefined),
      STOP_ATTEMPT_MS,
    );
    const generation = this.generation;
    this.retryTimer = setTimeout(() => void this.retry(generation), delay);
  }

  private async retry(generation: number): Promise<void> {
    this.retryTimer = undefined;
    if (this.stopped || generation !== this.generation) return;
    try {
      this.inner = await this.options.build();
    } catch (err) {
      if (generation === this.generation)
        this.fail(this.inner, `cannot build the adapter: ${errorText(err)}`);
      return;
    }
    if (generation !== this.generation) return;
    await this.attempt();
  }
}
