import { randomUUID } from "node:crypto";
import type { RunResult } from "../agent/agent.js";
import { Outbox } from "../runtime/delivery/outbox.js";
import type { DeliveryLog } from "../runtime/delivery/types.js";
import type { Runtime } from "../runtime/runtime.js";
import type { RoutingStore } from "../state/routing.js";
import { AgentPool } from "./agent-pool.js";
import type { GatewayAuth } from "./auth/authorize.js";
import { type Chat, ChatSessions, chatOf } from "./chat-sessions.js";
import { createCommandHost } from "./command-host.js";
import { type CommandHost, isControlCommand, parseCommand, runCommand } from "./control-commands.js";
import { Lanes } from "./lanes.js";
import type { DeliveryLedger } from "./ledger.js";
import { MediaCache, mediaCacheDirs, mediaCacheLimits } from "./media-cache.js";
import { ChatPrompts } from "./prompts.js";
import { Reply } from "./reply.js";
import { rerunPrompt } from "./rerun.js";
import {
  type BusyMode,
  busyModeOf,
  defaultWorkDir,
  requireMention,
  settlesWithin,
  streamingFor,
  toolsetsFor,
} from "./runner-settings.js";
import { sessionKeyOf } from "./session-key.js";
import { placeAttachments, runTurn, type TurnOutput, userMessageText } from "./turn.js";
import {
  type AttachmentFetch,
  type ChatAddress,
  chatTarget,
  type InboundAttachment,
  type InboundMessage,
  type InboundReceipt,
  type InboundSink,
  type PlatformAdapter,
} from "./types.js";
import { answerOutput, createGatewayLink, withSkills } from "./webhook-delivery.js";

export interface GatewayRunnerOptions {
  /** From createRuntime({platform: "gateway", ...}). */
  runtime: Runtime;
  /** Already built; the runner calls start(sink) / stop(). */
  adapters: PlatformAdapter[];
  ledger: DeliveryLedger;
  auth: GatewayAuth;
  log?: DeliveryLog;
  /** Tests. */
  now?: () => number;
  /** Where documents users send are saved (uploads/); default: the terminal's working directory. */
  workDir?: string;
}

export interface GatewayStatus {
  platforms: { name: string; connected: boolean; lastError?: string }[];
  liveSessions: number;
  lanes: { key: string; running: boolean; queued: number }[];
  lastError?: string;
}

/** The user message of a turn that only delivers background notices (they ride in front of it). */
const NOTICE_PROMPT =
  "[Background work you started has reported back (above). Tell the user briefly what came of it.]";

/**
 * The messaging gateway's core. Every platform update passes these stages once, in this order:
 *
 *   1. adapter      maps the platform's update to an InboundMessage and hands it to the sink
 *   2. authorize    allowlists, pairing (a stranger's DM gets a code, unrecorded), require_mention;
 *                   button presses are answered here and never recorded
 *   3. files        the message's attachments are downloaded (only now: strangers cost nothing)
 *   4. record       the inbound ledger row, durably (a duplicate stops here)
 *   5. acknowledge  the receipt tells the adapter to confirm the update to the platform, or, when
 *                   it could not be recorded, not to (the platform sends it again)
 *   6. lane         control commands and clarify answers inline, else a turn in the chat's lane:
 *                   one chat's turns never interleave, different chats run in parallel
 *   7. turn         the chat's agent answers; the reply is recorded in the outbound ledger
 *   8. platform     the recorded reply is sent, chunk by chunk, each marked as it goes out
 */
export class GatewayRunner {
  private readonly runtime: Runtime;
  private readonly ledger: DeliveryLedger;
  private readonly auth: GatewayAuth;
  private readonly log: DeliveryLog;
  private readonly now: () => number;
  private readonly adapters = new Map<string, PlatformAdapter>();
  /** Every platform's outbound delivery, on the ledger. */
  private readonly outbox: Outbox;
  private readonly mediaCache: MediaCache;
  private readonly connected = new Map<string, { connected: boolean; lastError?: string }>();
  private readonly routing: RoutingStore;
  private readonly pool: AgentPool;
  private readonly sessions: ChatSessions;
  private readonly lanes: Lanes;
  private readonly prompts: ChatPrompts;
  /** The running turn's output per chat: where its agent's events go. */
  private readonly outputs = new Map<string, TurnOutput>();
  private readonly busyMode: BusyMode;
  private readonly workDir: string;
  private draining = false;
  /** Chats with a notice turn waiting in their lane (one is enough for any number of notices). */
  private readonly noticeQueued = new Set<string>();
  private lastError: string | undefined;

  constructor(options: GatewayRunnerOptions) {
    const { runtime } = options;
    const config = runtime.config;
    this.runtime = runtime;
    this.ledger = options.ledger;
    this.auth = options.auth;
    this.log = options.log ?? (() => undefined);
    this.now = options.now ?? Date.now;
    this.busyMode = busyModeOf(config);
    this.workDir = options.workDir ?? defaultWorkDir(config);
    this.outbox = new Outbox(this.ledger, { log: this.log });
    for (const adapter of options.adapters) {
      this.adapters.set(adapter.name, adapter);
      this.outbox.add(adapter);
      this.connected.set(adapter.name, { connected: false });
    }
    this.mediaCache = new MediaCache({
      dirs: mediaCacheDirs(runtime.paths.cache, [...this.adapters.keys()]),
      limits: mediaCacheLimits(config.gateway),
      log: this.log,
    });
    const link = createGatewayLink({ adapters: this.adapters, ledger: this.ledger, runtime, log: this.log });
    this.sink = Object.assign((m: InboundMessage, files?: AttachmentFetch) => this.take(m, files), {
      gateway: link,
    });
    if (!runtime.sessions) throw new Error(runtime.storeProblem ?? "state.db could not be opened");
    this.routing = runtime.sessions.routing;
    this.pool = new AgentPool({
      maxLive: config.gateway.max_live_agents,
      idleTtlMs: config.gateway.agent_idle_ttl * 1000,
      now: this.now,
      onEvict: (key, agent, reason) =>
        this.log("info", "agent closed", { key, session: agent.sessionId, reason }),
    });
    this.lanes = new Lanes((key, err) => this.fault("lane job failed", err, { key }));
    this.prompts = new ChatPrompts(config.approvals.gateway_timeout * 1000, this.log);
    this.sessions = new ChatSessions({
      runtime,
      routing: this.routing,
      pool: this.pool,
      reset: config.session_reset,
      now: this.now,
      agentOptions: (chat) => this.agentOptions(chat),
    });
  }

  /** Sends what earlier runs left unsent, re-queues their unfinished messages, then starts the adapters. */
  async start(): Promise<void> {
    this.mediaCache.start();
    const resent = await this.outbox.resumePending((platform, err) =>
      this.fault("resending pending messages failed", err, { platform }),
    );
    for (const [platform, count] of resent) {
      if (count > 0) this.log("info", "resent pending messages", { platform, count });
    }
    for (const m of this.ledger.unfinishedInbound()) {
      if (!this.adapters.has(m.platform)) continue;
      // Its answer was recorded before the stop (resumePending above sent it): never ask the model twice.
      if (this.ledger.outbound(`${m.platform}:${m.updateId}:answer`)) {
        this.mark(m, "done");
        continue;
      }
      // Its sender was authorized when it came in; an access revoked since then holds.
      if (!(await this.auth.allows(m))) {
        this.mark(m, "skipped");
        continue;
      }
      this.log("info", "re-running an unfinished message", { platform: m.platform, update: m.updateId });
      void this.dispatch(m, this.keyOf(m));
    }
    await Promise.all(
      [...this.adapters.values()].map(async (adapter) => {
        try {
          await adapter.start(this.sink);
          this.connected.set(adapter.name, { connected: true });
        } catch (err) {
          this.connected.set(adapter.name, { connected: false, lastError: String(err) });
          this.fault("platform failed to start", err, { platform: adapter.name });
        }
      }),
    );
  }

  /**
   * Stops taking updates, gives running turns up to `timeoutMs`, interrupts the rest and closes every
   * agent. Messages not finished stay unfinished in the ledger: the next start runs them.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    await Promise.allSettled([...this.adapters.values()].map((a) => a.stop()));
    for (const name of this.connected.keys()) this.connected.set(name, { connected: false });
    const idle = this.lanes.allIdle();
    if (!(await settlesWithin(idle, timeoutMs))) {
      for (const { key } of this.lanes.status()) {
        this.lanes.clear(key);
        this.prompts.cancel(key);
        this.pool.peek(key)?.interrupt();
      }
      await settlesWithin(idle, 10_000);
    }
    await this.pool.closeAll("gateway_stop");
    await this.mediaCache.stop();
  }

  status(): GatewayStatus {
    return {
      platforms: [...this.connected].map(([name, s]) => ({ name, ...s })),
      liveSessions: this.pool.size,
      lanes: this.lanes.status(),
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  /** Sends `text` to a chat (hermes send, background notices), through the ledger. */
  async notify(target: { platform: string; chatId: string; threadId?: string }, text: string): Promise<void> {
    await this.outbox.deliver(target.platform, `notify:${randomUUID()}`, chatTarget(target), text);
  }

  // ---- inbound: adapter → authorize → files → record → acknowledge ----

  /** What adapters hand updates to (`take`), with the link webhook routes deliver through. */
  private readonly sink: InboundSink;

  /**
   * Stages 2-5 of an update: authorize it, fetch its files, record it durably, and tell the adapter
   * what to confirm to the platform. Nothing of a stranger's message is downloaded or recorded.
   * Never throws: an update that cannot be recorded is `unavailable`, for the platform to resend.
   */
  private async take(m: InboundMessage, fetchAttachments?: AttachmentFetch): Promise<InboundReceipt> {
    try {
      const adapter = this.adapters.get(m.platform);
      if (!adapter) return IGNORED;
      const decision = await this.auth.check(m);
      if (m.action) {
        void this.press(adapter, m, decision.allowed);
        return decision.allowed ? ACCEPTED : IGNORED;
      }
      if (!decision.allowed) {
        if (decision.reply) void this.answerStranger(adapter, m, decision.reply);
        return IGNORED;
      }
      if (m.chatType !== "dm" && requireMention(this.runtime, m.platform) && !m.addressed) return IGNORED;
      let message = m;
      if (fetchAttachments) {
        // A redelivered update is not downloaded again (reads never wait on the write lock).
        if (this.ledger.inboundStatus(m.platform, m.updateId)) return DUPLICATE;
        message = withAttachments(m, await fetchAttachments());
      }
      const key = this.keyOf(message);
      if ((await this.ledger.recordInbound(message, key)) === "duplicate") return DUPLICATE;
      void this.dispatch(message, key);
      return ACCEPTED;
    } catch (err) {
      this.fault("inbound update not recorded; the platform is asked to send it again", err, {
        platform: m.platform,
        update: m.updateId,
      });
      return { status: "unavailable", retryAfterSeconds: RETRY_AFTER_S, reason: errorText(err) };
    }
  }

  private keyOf(m: InboundMessage): string {
    const config = this.runtime.config;
    return sessionKeyOf(m, {
      groupSessionsPerUser: config.group_sessions_per_user,
      threadSessionsPerUser: config.thread_sessions_per_user,
    });
  }

  /** A stranger's pairing reply: sent once, never recorded (the pairing store rate-limits it). */
  private async answerStranger(adapter: PlatformAdapter, m: InboundMessage, text: string): Promise<void> {
    try {
      await adapter.send(chatTarget(m), text, { format: "plain" });
    } catch (err) {
      this.log("warn", "pairing reply not delivered", { platform: m.platform, error: errorText(err) });
    }
  }

  // ---- the chat's lane: a control command or clarify answer inline, else a turn ----

  /** Stage 6 of a recorded message. Never throws: a failure marks the message failed. */
  private async dispatch(m: InboundMessage, key: string): Promise<void> {
    try {
      const chat = chatOf(m, key);
      const cmd = parseCommand(m.text);
      if (!(cmd && isControlCommand(cmd.name)) && this.prompts.answerClarify(key, userMessageText(m))) {
        return this.mark(m, "done");
      }
      let text: string | undefined;
      if (cmd) {
        let deferred = false;
        const outcome = await runCommand(
          cmd,
          this.commandHost(chat, m, () => (deferred = true)),
        );
        if (outcome.kind === "reply") {
          await this.send(m, key, "cmd", outcome.text);
          if (!deferred) this.mark(m, "done");
          return;
        }
        if (outcome.kind === "message") text = outcome.text;
      }
      this.submit(chat, m, text);
    } catch (err) {
      this.fault("update failed", err, { key, update: m.updateId });
      this.mark(m, "failed");
    }
  }

  /** A button press: answers the prompt it belongs to (when its user may still talk to us); never recorded. */
  private async press(adapter: PlatformAdapter, m: InboundMessage, allowed: boolean): Promise<void> {
    const data = m.action?.data ?? "";
    const toast = !allowed
      ? "Not allowed."
      : ChatPrompts.isPromptButton(data)
        ? this.prompts.press(data, m.userId)
        : "This button is no longer active.";
    if (m.action?.callbackId && adapter.answerAction) {
      await adapter.answerAction(m.action.callbackId, toast).catch(() => undefined);
    }
  }

  /** Runs a message as a turn in its chat's lane; what a busy chat does with it is `busy_mode`. */
  private submit(chat: Chat, m: InboundMessage, text?: string, label = "message"): void {
    const running = this.lanes.busy(chat.key) ? this.sessions.live(chat.key) : undefined;
    if (running && this.busyMode === "steer" && text === undefined) {
      running.steer(userMessageText(m));
      void this.send(m, chat.key, "steer", "↪ Noted: the running answer will take it into account.");
      this.mark(m, "done");
      return;
    }
    if (running && this.busyMode === "interrupt") running.interrupt();
    this.lanes.enqueue(
      chat.key,
      () => this.runMessage(chat, m, text),
      label,
      () => {
        if (!this.draining) this.mark(m, "skipped");
      },
    );
  }

  /** One turn: the chat's agent (resumed, or new after a reset) answers the message. */
  private async runMessage(chat: Chat, m: InboundMessage, text?: string): Promise<void> {
    await this.sessions.resetIfDue(chat);
    // A re-run after a restart: its turn may have started, so it runs with the same text.
    const again = m.preparedText !== undefined;
    // A chat user's documents go into their own working folder (gateway.user_workdirs).
    const scope = this.runtime.scopeOf({ platform: chat.platform, userId: chat.userId });
    const uploadDir = scope.userKey ? scope.workdir : this.workDir;
    let userText =
      m.preparedText ?? text ?? userMessageText(m, await placeAttachments(m.attachments ?? [], uploadDir));
    if (!again && m.skills?.length) {
      userText = await withSkills(this.sessions.agent(chat).skills, m.skills, userText, this.log);
    }
    try {
      await this.ledger.startInbound(m.platform, m.updateId, userText, this.sessions.agent(chat).sessionId);
    } catch (err) {
      // The turn runs anyway; a re-run after a restart would build its text again.
      this.fault("could not mark the message as started", err, { update: m.updateId });
    }
    const key = `${m.platform}:${m.updateId}`;
    const status = await this.runTurnOf(chat, userText, key, {
      ...(m.messageId ? { replyTo: m.messageId } : {}),
      again,
      ...(m.deliverTo ? { deliverTo: m.deliverTo } : {}),
    });
    // A turn the drain cut short runs again at the next start.
    if (!(this.draining && status === "interrupted")) this.mark(m, status === "failed" ? "failed" : "done");
  }

  /**
   * Runs `text` as a turn of the chat's agent, its answer delivered under idempotency key `key`, as
   * a reply to `replyTo`, or to `deliverTo` (a webhook route's chat); `again`: a re-run after a restart.
   */
  private async runTurnOf(
    chat: Chat,
    text: string,
    key: string,
    o: { replyTo?: string; again?: boolean; deliverTo?: ChatAddress } = {},
  ): Promise<RunResult["status"]> {
    const { replyTo, again = false, deliverTo } = o;
    const adapter = this.adapters.get(chat.platform)!;
    const out = answerOutput(chat, deliverTo, this.adapters, this.outbox, replyTo, this.log);
    const reply = new Reply({
      ...out,
      key,
      sessionKey: chat.key,
      streaming: streamingFor(this.runtime, adapter),
      log: this.log,
    });
    const lease = this.sessions.lease(chat);
    this.outputs.set(chat.key, reply);
    try {
      const prompt = again
        ? rerunPrompt(lease.agent, text, (id, count) => this.runtime.dropStoredMessages(id, count))
        : text;
      const result = await runTurn({
        agent: lease.agent,
        text: prompt,
        output: reply,
        adapter,
        target: chat.target,
        typingIntervalMs: this.runtime.config.gateway.typing_interval * 1000,
        quiet: (r) => this.draining && r.status === "interrupted",
      });
      this.sessions.touch(chat, lease.agent);
      return result.status;
    } finally {
      this.outputs.delete(chat.key);
      lease.release();
    }
  }

  /**
   * A background process or delegation finished and left a notice for the model. A running turn
   * picks it up with its next tool result; otherwise a turn of its own tells the chat what came of it.
   */
  private deliverNotices(chat: Chat): void {
    if (this.noticeQueued.has(chat.key) || this.draining) return;
    this.noticeQueued.add(chat.key);
    this.lanes.enqueue(
      chat.key,
      async () => {
        this.noticeQueued.delete(chat.key);
        const agent = this.sessions.live(chat.key);
        if (!agent || agent.pendingNotices === 0) return;
        await this.runTurnOf(chat, NOTICE_PROMPT, `${chat.platform}:notice:${randomUUID()}`);
      },
      "notice",
      () => this.noticeQueued.delete(chat.key),
    );
  }

  private commandHost(chat: Chat, m: InboundMessage, defer: () => void): CommandHost {
    return createCommandHost({
      chat,
      runtime: this.runtime,
      sessions: this.sessions,
      lanes: this.lanes,
      prompts: this.prompts,
      enqueue: (text) => {
        // The /queue message itself stays unfinished until its turn ran (a restart runs it again).
        defer();
        const run = () => this.runMessage(chat, m, text);
        this.lanes.enqueue(chat.key, run, "queued", () => this.mark(m, "skipped"));
      },
    });
  }

  // ---- helpers ----

  /** How a chat's agent is made: its owner, platform toolsets and the chat's prompts. */
  private agentOptions(
    chat: Chat,
  ): ReturnType<ConstructorParameters<typeof ChatSessions>[0]["agentOptions"]> {
    const adapter = this.adapters.get(chat.platform)!;
    const promptChat = { key: chat.key, userId: chat.userId, target: chat.target, adapter };
    const toolsets = toolsetsFor(this.runtime, chat.platform);
    return {
      listener: (e) => this.outputs.get(chat.key)?.onEvent(e),
      options: {
        platform: chat.platform,
        source: chat.platform,
        owner: { userId: chat.userId, chatId: chat.chatId, sessionKey: chat.key },
        approve: (req) => this.prompts.askApproval(promptChat, req),
        clarify: (req) => this.prompts.askClarify(promptChat, req),
        ...(toolsets ? { toolsets } : {}),
        learn: true,
        onNotice: () => this.deliverNotices(chat),
      },
    };
  }

  /** A short message to the chat outside a turn (command answers, auth replies), through the ledger. */
  private async send(m: InboundMessage, key: string, kind: string, text: string): Promise<void> {
    try {
      await this.outbox.deliver(m.platform, `${m.platform}:${m.updateId}:${kind}`, chatTarget(m), text, {
        sessionKey: key,
        format: "plain",
      });
    } catch (err) {
      this.fault("reply not delivered", err, { key, kind });
    }
  }

  /** Records how a message ended, in the background (a failure is logged; a restart re-runs it). */
  private mark(m: InboundMessage, status: "done" | "skipped" | "failed"): void {
    void (async () => {
      try {
        await this.ledger.markInbound(m.platform, m.updateId, status);
      } catch (err) {
        this.fault("ledger update failed", err, { update: m.updateId });
      }
    })();
  }

  private fault(message: string, err: unknown, fields: Record<string, unknown> = {}): void {
    const error = errorText(err);
    this.lastError = `${message}: ${error}`;
    this.log("error", message, { ...fields, error });
  }
}

const ACCEPTED: InboundReceipt = { status: "accepted" };
const DUPLICATE: InboundReceipt = { status: "duplicate" };
const IGNORED: InboundReceipt = { status: "ignored" };
/** What a platform is asked to wait before sending an update that could not be recorded again. */
const RETRY_AFTER_S = 3;

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The message with its fetched files; files that could not be fetched become notes in its text. */
function withAttachments(
  m: InboundMessage,
  fetched: { attachments: InboundAttachment[]; notes: string[] },
): InboundMessage {
  const text = [m.text, ...fetched.notes].filter((t) => t !== "").join("\n");
  const attachments = [...(m.attachments ?? []), ...fetched.attachments];
  return { ...m, text, ...(attachments.length > 0 ? { attachments } : {}) };
}
