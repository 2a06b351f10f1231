import type { Agent } from "../agent/agent.js";
import { parseSkillCommand } from "../skills/invoke.js";
import type { SessionRecord } from "../state/store.js";
import type { ApprovalChoice } from "../tools/approval/types.js";

/**
 * Chat commands the gateway answers itself. They run inline, even while the chat's agent is busy
 * (they never wait in its lane): `/stop` must reach a turn that runs for minutes.
 */

/** A `/command args` as typed; Telegram's `/cmd@BotName` form is accepted in groups. */
export interface ParsedCommand {
  name: string;
  args: string;
}

export function parseCommand(text: string): ParsedCommand | undefined {
  const m = /^\/([A-Za-z0-9_.-]+)(?:@[A-Za-z0-9_]+)?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  return { name: (m[1] as string).toLowerCase(), args: (m[2] ?? "").trim() };
}

/** Commands the gateway answers itself (a skill or unknown command goes elsewhere). */
const CONTROL = new Set([
  "help",
  "commands",
  "stop",
  "new",
  "reset",
  "queue",
  "approve",
  "deny",
  "status",
  "usage",
  "title",
  "model",
  "resume",
]);

export const isControlCommand = (name: string): boolean => CONTROL.has(name);

/** What the runner lends a command: the chat's agent, lane and session, never its internals. */
export interface CommandHost {
  /** The chat's live agent, if any (no new one is made for a question like /status). */
  liveAgent(): Agent | undefined;
  /** The chat's agent, resumed or created when not live. */
  agent(): Agent;
  /** The chat's current session id (live agent or stored route). */
  sessionId(): string | undefined;
  session(id: string): SessionRecord | undefined;
  /** The model new turns of this chat use (its /model choice or the default). */
  model(): string;
  busy(): boolean;
  queued(): number;
  /** Interrupts the running turn and drops the queued ones; returns how many were dropped. */
  stop(): number;
  /** Ends the chat's session (closing its agent); the next message starts a new one. */
  newSession(): Promise<void>;
  /** Puts text in the chat's lane as if the user sent it (runs after what is queued). */
  enqueue(text: string): void;
  answerApproval(choice: ApprovalChoice): boolean;
  /** Titles the chat's session; returns an error message when it cannot. */
  setTitle(title: string): string | undefined;
  /** Switches the chat's model (kept for the chat across evictions and restarts). */
  setModel(model: string): void;
  /** This user's sessions on this platform, newest first: all /resume may reach. */
  ownSessions(limit: number): SessionRecord[];
  /** Continues the stored session `sessionId` in this chat from the next message on. */
  resume(sessionId: string): Promise<void>;
}

export type CommandOutcome =
  /** Answered: the text goes back to the chat. */
  | { kind: "reply"; text: string }
  /** The command becomes this user message (a skill invocation). */
  | { kind: "message"; text: string }
  /** Not ours: the text goes to the model as typed. */
  | { kind: "pass" };

const HELP = [
  "Commands:",
  "/stop: stop the running answer (and drop queued messages)",
  "/new: start a new conversation",
  "/queue TEXT: send TEXT after the running answer",
  "/status: model, session, what runs and waits",
  "/approve [always], /deny: answer a command approval",
  "/usage: tokens and cost of this conversation",
  "/title NAME: name this conversation",
  "/model [NAME]: show or switch the model",
  "/resume [ID|TITLE]: list your conversations, or continue one",
  "/<skill> [args]: run a skill",
  "/help: this list",
].join("\n");

const count = (n: number): string => n.toLocaleString("en-US");

/** Handles `cmd` for one chat. Never throws: a failure is a reply saying what went wrong. */
export async function runCommand(cmd: ParsedCommand, host: CommandHost): Promise<CommandOutcome> {
  try {
    return await dispatch(cmd, host);
  } catch (err) {
    return { kind: "reply", text: `⚠️ /${cmd.name} failed: ${(err as Error).message}` };
  }
}

async function dispatch(cmd: ParsedCommand, host: CommandHost): Promise<CommandOutcome> {
  const reply = (text: string): CommandOutcome => ({ kind: "reply", text });
  switch (cmd.name) {
    case "help":
    case "commands":
      return reply(HELP);
    case "stop": {
      const running = host.busy();
      const dropped = host.stop();
      if (!running && dropped === 0) return reply("Nothing is running.");
      return reply(
        `⏹ Stopping.${dropped ? ` Dropped ${dropped} queued message${dropped === 1 ? "" : "s"}.` : ""}`,
      );
    }
    case "new":
    case "reset":
      await host.newSession();
      return reply("🆕 New conversation started.");
    case "queue":
      if (!cmd.args) return reply("Usage: /queue TEXT");
      host.enqueue(cmd.args);
      return reply(host.busy() ? `Queued (${host.queued()} waiting).` : "Queued.");
    case "approve":
    case "deny": {
      const choice: ApprovalChoice =
        cmd.name === "deny"
          ? "deny"
          : cmd.args === "always"
            ? "always"
            : cmd.args === "session"
              ? "session"
              : "once";
      return reply(host.answerApproval(choice) ? answered(choice) : "No approval is waiting.");
    }
    case "status":
      return reply(statusText(host));
    case "usage":
      return reply(usageText(host));
    case "title": {
      if (!cmd.args) {
        const id = host.sessionId();
        const title = id ? host.session(id)?.title : undefined;
        return reply(title ? `Title: ${title}` : "No title yet. Usage: /title NAME");
      }
      const error = host.setTitle(cmd.args.slice(0, 200));
      return reply(error ? `⚠️ ${error}` : `Title set: ${cmd.args.slice(0, 200)}`);
    }
    case "model":
      if (!cmd.args) return reply(`Model: ${host.model()}`);
      host.setModel(cmd.args);
      return reply(`Model switched to ${cmd.args} for this chat.`);
    case "resume":
      return reply(await resume(cmd.args, host));
    default:
      return skill(cmd, host);
  }
}

/** Sessions /resume lists, and how far back it looks for a match. */
const RESUME_LIST = 10;
const RESUME_SEARCH = 200;

/** `/resume`: lists the user's recent conversations; `/resume ID|PREFIX|TITLE` continues one of them. */
async function resume(args: string, host: CommandHost): Promise<string> {
  const current = host.sessionId();
  if (!args) {
    const mine = host.ownSessions(RESUME_LIST);
    if (mine.length === 0) return "You have no stored conversations yet.";
    const lines = mine.map(
      (s) =>
        `${s.id === current ? "▶" : "•"} ${s.id.slice(0, 8)}  ${s.title ?? "(untitled)"}  ${new Date(s.startedAt).toISOString().slice(0, 16).replace("T", " ")}`,
    );
    return [
      "Your conversations (newest first):",
      ...lines,
      "Continue one with /resume ID or /resume TITLE.",
    ].join("\n");
  }
  if (host.busy()) return "A turn is running: /stop it first.";
  const wanted = args.trim();
  const mine = host.ownSessions(RESUME_SEARCH);
  const lower = wanted.toLowerCase();
  const match =
    mine.find((s) => s.id === wanted) ??
    (mine.filter((s) => s.id.startsWith(wanted)).length === 1
      ? mine.find((s) => s.id.startsWith(wanted))
      : undefined) ??
    mine.find((s) => s.title?.toLowerCase() === lower);
  if (!match) return `No conversation of yours matches '${wanted}'. /resume lists them.`;
  if (match.id === current) return "That is the current conversation.";
  await host.resume(match.id);
  return `↩️ Continuing ${match.title ? `"${match.title}"` : match.id.slice(0, 8)} (${match.messageCount} messages).`;
}

const answered = (choice: ApprovalChoice): string =>
  choice === "deny" ? "❌ Denied." : choice === "always" ? "✅ Approved always." : "✅ Approved.";

/** `/<skill-name> args`: the skill's instructions become the user message; anything else passes. */
async function skill(cmd: ParsedCommand, host: CommandHost): Promise<CommandOutcome> {
  const parsed = parseSkillCommand(`/${cmd.name}${cmd.args ? ` ${cmd.args}` : ""}`);
  if (!parsed) return { kind: "pass" };
  const skills = host.agent().skills;
  if (!skills.has(parsed.name)) return { kind: "pass" };
  const r = await skills.invoke(parsed.name, parsed.args);
  return "error" in r ? { kind: "reply", text: `⚠️ ${r.error}` } : { kind: "message", text: r.message };
}

function statusText(host: CommandHost): string {
  const agent = host.liveAgent();
  const id = host.sessionId();
  const row = id ? host.session(id) : undefined;
  const usage = agent?.totalUsage;
  const lines = [
    `Model: ${host.model()}`,
    `Session: ${id ?? "(new: starts with your next message)"}${row?.title ? ` (${row.title})` : ""}`,
    `Running: ${host.busy() ? "yes" : "no"}`,
    `Queued: ${host.queued()}`,
    `Tokens: ${count((usage?.inputTokens ?? row?.inputTokens ?? 0) + (usage?.outputTokens ?? row?.outputTokens ?? 0))}`,
  ];
  return lines.join("\n");
}

function usageText(host: CommandHost): string {
  const id = host.sessionId();
  const row = id ? host.session(id) : undefined;
  const live = host.liveAgent()?.totalUsage;
  if (!row && !live) return "No usage yet in this conversation.";
  // The stored row adds up every call of the session (across restarts); the live agent's count is this run's.
  const input = Math.max(row?.inputTokens ?? 0, live?.inputTokens ?? 0);
  const output = Math.max(row?.outputTokens ?? 0, live?.outputTokens ?? 0);
  const cacheRead = Math.max(row?.cacheReadTokens ?? 0, live?.cacheReadTokens ?? 0);
  const lines = [
    `Input tokens: ${count(input)}`,
    `Output tokens: ${count(output)}`,
    `Cache reads: ${count(cacheRead)}`,
    ...(row && row.costUsd > 0 ? [`Estimated cost: $${row.costUsd.toFixed(4)}`] : []),
    ...(row ? [`Messages: ${count(row.messageCount)}`] : []),
  ];
  return lines.join("\n");
}
