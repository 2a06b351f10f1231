import { randomBytes } from "node:crypto";
import type { ApprovalChoice, ApprovalRequest } from "../tools/approval/types.js";
import type { ClarifyRequest } from "../tools/context.js";
import type { Button, OutboundTarget, PlatformAdapter } from "./types.js";

/** The chat a prompt is asked in. */
export interface PromptChat {
  key: string;
  userId: string;
  target: OutboundTarget;
  adapter: PlatformAdapter;
}

type Log = (level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;

interface Pending {
  id: string;
  kind: "approval" | "clarify";
  chat: PromptChat;
  /** The prompt message, edited once answered (buttons removed). */
  messageId: string | undefined;
  text: string;
  choices: string[];
  /** Settles the prompt; false when it was already settled. */
  settle: (answer: string | undefined, how: string) => boolean;
  /** Set once settled: how, and with what. */
  outcome?: { answer: string | undefined; how: string };
}

/** Button data: `hx:<id>:<answer>` (short: Telegram allows 64 bytes). */
const PREFIX = "hx:";

const APPROVAL_BUTTONS = (id: string): Button[][] => [
  [
    { text: "Approve once", data: `${PREFIX}${id}:once` },
    { text: "Approve always", data: `${PREFIX}${id}:always` },
  ],
  [{ text: "Deny", data: `${PREFIX}${id}:deny` }],
];

const CHOICE_WORDS: Record<ApprovalChoice, string> = {
  once: "✅ Approved once",
  session: "✅ Approved for this session",
  always: "✅ Approved always",
  deny: "❌ Denied",
};

/**
 * Approvals and clarify questions asked in a chat. An approval is a message with buttons (Approve
 * once / Approve always / Deny) answered by a press or by /approve and /deny; it is denied when
 * `timeoutMs` passes or the turn is interrupted. A clarify question lists its choices as buttons;
 * a press or the chat's next message answers it.
 */
export class ChatPrompts {
  private readonly byId = new Map<string, Pending>();

  constructor(
    private readonly timeoutMs: number,
    private readonly log: Log,
  ) {}

  askApproval(chat: PromptChat, req: ApprovalRequest): Promise<ApprovalChoice> {
    const lines = [
      "⚠️ This command needs your approval:",
      "",
      req.command.length > 1500 ? `${req.command.slice(0, 1500)}…` : req.command,
      "",
      ...req.reasons.map((r) => `• ${r.description}`),
      ...(req.judgeNote ? [`Approval model: ${req.judgeNote}`] : []),
      "",
      "Reply /approve, /approve always or /deny.",
    ];
    return this.ask(chat, "approval", lines.join("\n"), [], req.signal, (id) => APPROVAL_BUTTONS(id)).then(
      (answer) => (answer === "once" || answer === "always" || answer === "session" ? answer : "deny"),
    );
  }

  askClarify(chat: PromptChat, req: ClarifyRequest): Promise<string | undefined> {
    const choices = req.choices.slice(0, 4);
    const text = `❓ ${req.question}${choices.length ? "\n\nPick one below or type your answer." : ""}`;
    return this.ask(chat, "clarify", text, choices, req.signal, (id) =>
      choices.map((c, i) => [
        { text: c.length > 60 ? `${c.slice(0, 57)}…` : c, data: `${PREFIX}${id}:${i}` },
      ]),
    );
  }

  /** Whether the chat has a question waiting for its next message. */
  hasClarify(key: string): boolean {
    return [...this.byId.values()].some((p) => p.kind === "clarify" && p.chat.key === key);
  }

  /** Whether the chat has an approval waiting. */
  hasApproval(key: string): boolean {
    return [...this.byId.values()].some((p) => p.kind === "approval" && p.chat.key === key);
  }

  /** Whether `data` is one of ours (a press of a prompt button). */
  static isPromptButton(data: string): boolean {
    return data.startsWith(PREFIX);
  }

  /**
   * A button press: settles its prompt when `userId` is the one asked. Returns the toast to show
   * (e.g. "This prompt has expired").
   */
  press(data: string, userId: string): string {
    const [id, answer] = data.slice(PREFIX.length).split(":");
    const p = id ? this.byId.get(id) : undefined;
    if (!p || answer === undefined) return "This prompt has expired.";
    if (p.chat.userId !== userId) return "This prompt is for someone else.";
    const value = p.kind === "clarify" ? p.choices[Number(answer)] : answer;
    if (value === undefined) return "Unknown choice.";
    p.settle(value, "button");
    return p.kind === "clarify" ? "Answered." : (CHOICE_WORDS[value as ApprovalChoice] ?? "Done.");
  }

  /** /approve and /deny: answers the chat's oldest waiting approval; false when there is none. */
  answerApproval(key: string, choice: ApprovalChoice): boolean {
    const p = [...this.byId.values()].find((x) => x.kind === "approval" && x.chat.key === key);
    return p ? p.settle(choice, "command") : false;
  }

  /** The chat's next message answers its waiting question; false when there is none. */
  answerClarify(key: string, text: string): boolean {
    const p = [...this.byId.values()].find((x) => x.kind === "clarify" && x.chat.key === key);
    return p ? p.settle(text, "message") : false;
  }

  /** Settles every prompt of the chat with no answer (approvals are denied): /stop, /new. */
  cancel(key: string): void {
    for (const p of [...this.byId.values()]) if (p.chat.key === key) p.settle(undefined, "cancelled");
  }

  private ask(
    chat: PromptChat,
    kind: Pending["kind"],
    text: string,
    choices: string[],
    signal: AbortSignal,
    buttons: (id: string) => Button[][],
  ): Promise<string | undefined> {
    const id = randomBytes(6).toString("base64url");
    const answered = Promise.withResolvers<string | undefined>();
    const timer = setTimeout(() => settle(undefined, "timeout"), this.timeoutMs);
    timer.unref();
    // The approval gate's own timer aborts `signal` with a TimeoutError: that is a timeout too.
    const onAbort = (): void =>
      void settle(
        undefined,
        (signal.reason as Error | undefined)?.name === "TimeoutError" ? "timeout" : "interrupted",
      );
    const pending: Pending = { id, kind, chat, messageId: undefined, text, choices, settle: () => false };
    const settle = (answer: string | undefined, how: string): boolean => {
      if (!this.byId.has(id)) return false;
      this.byId.delete(id);
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      answered.resolve(answer);
      pending.outcome = { answer, how };
      void this.closePrompt(pending);
      return true;
    };
    pending.settle = settle;
    if (signal.aborted) return Promise.resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    this.byId.set(id, pending);
    chat.adapter.send(chat.target, text, { buttons: buttons(id), format: "plain" }).then(
      (sent) => {
        pending.messageId = sent.messageId;
        // Answered before the send came back (a quick /approve): close it now.
        if (pending.outcome) void this.closePrompt(pending);
      },
      (err: unknown) => {
        // Nobody can answer a prompt that never arrived: the tool gets "no" now, not after the timeout.
        this.log("warn", "prompt not delivered", { kind, key: chat.key, error: String(err) });
        settle(undefined, "undelivered");
      },
    );
    return answered.promise;
  }

  /** Shows the outcome under the prompt and takes its buttons away (best effort). */
  private async closePrompt(p: Pending): Promise<void> {
    if (!p.messageId || !p.outcome) return;
    const { answer, how } = p.outcome;
    const outcome =
      p.kind === "approval"
        ? (CHOICE_WORDS[answer as ApprovalChoice] ??
          (how === "timeout" ? "⌛ No answer: denied" : "❌ Denied"))
        : answer === undefined
          ? "⌛ No answer"
          : `➡️ ${answer}`;
    try {
      await p.chat.adapter.edit(p.chat.target, p.messageId, `${p.text}\n\n${outcome}`, {
        buttons: [],
        format: "plain",
      });
    } catch (err) {
      this.log("warn", "prompt not updated", { key: p.chat.key, error: String(err) });
    }
  }
}
