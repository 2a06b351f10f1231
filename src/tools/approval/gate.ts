import type { HermesConfig } from "../../core/config.js";
import type { ToolContext } from "../context.js";
import { type Detection, detectCommand } from "./detect.js";
import { loadShellGrammar } from "./grammar.js";
import { type ApprovalOutcome, ApprovalSession, parseApprovalMode } from "./session.js";
import type { ApprovalChoice, PatternMatch } from "./types.js";
import { CHAT_USER_SCOPE_KEY } from "./user-confine.js";

/**
 * The terminal tool's approval gate. Order: hardline (local backend: never) → container backends
 * (isolated: allowed) → no dangerous match (allowed, maybe with a "modifies files" warning) →
 * yolo / approvals.mode off → session and permanent approvals → smart judge → the user, when
 * someone can answer; otherwise denied with a result the model can act on.
 */

export type GateResult =
  | {
      allowed: true;
      warning?: string;
      /** Adds the warning (if any) to the tool's JSON result. */
      annotate: (result: string) => string;
    }
  | { allowed: false; result: string };

/** Adds `warning` to a JSON object result that is not an error; anything else is returned as is. */
export function addWarning(result: string, warning: string | undefined): string {
  if (!warning) return result;
  try {
    const parsed: unknown = JSON.parse(result);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || "error" in parsed)
      return result;
    return JSON.stringify({ ...parsed, warning });
  } catch {
    return result;
  }
}

/** Backends where a command cannot reach the user's machine: approvals do not apply. */
const CONTAINER_BACKENDS: ReadonlySet<string> = new Set([
  "docker",
  "singularity",
  "modal",
  "daytona",
  "podman",
]);
const JUDGE_TIMEOUT_MS = 30_000;

const defaults = new WeakMap<HermesConfig, ApprovalSession>();

/** The session used when a context carries none: config mode, no yolo, nothing persisted. */
function sessionFor(ctx: ToolContext): ApprovalSession {
  if (ctx.approvals) return ctx.approvals;
  let s = defaults.get(ctx.config);
  if (!s) {
    s = new ApprovalSession({
      mode: parseApprovalMode(ctx.config.approvals?.mode),
      timeoutSeconds: ctx.config.approvals?.timeout ?? 60,
      allowlist: ctx.config.command_allowlist ?? [],
    });
    defaults.set(ctx.config, s);
  }
  return s;
}

/** A worker's context (subagents, background jobs): it cannot ask anyone, so it auto-denies (seed 004 §11.4). */
export function workerContext(ctx: ToolContext): ToolContext {
  return { ...ctx, approve: undefined, interactive: false };
}

const listReasons = (matches: readonly PatternMatch[]): string =>
  matches.map((m) => m.description).join("; ");
const deny = (error: string, extra: Record<string, unknown> = {}): GateResult => ({
  allowed: false,
  result: JSON.stringify({ error, ...extra }),
});

/** The note for commands that change files: warn-class descriptions and what is modified. */
function warningOf(d: Detection): string | undefined {
  const parts = d.warnings.map((w) => w.description);
  if (d.modifies.length > 0) parts.push(`this command modifies files: ${d.modifies.join(", ")}`);
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/** Where a command runs, when not in the environment's current folder (the terminal's `workdir`). */
export interface CommandPlace {
  cwd?: string;
}

/**
 * Decides whether `command` may run. Resolves `{allowed: true}` (with an optional warning for the
 * result) or `{allowed: false, result}` where `result` is the tool result to return. Never throws.
 */
export async function checkCommandApproval(
  command: string,
  ctx: ToolContext,
  where: CommandPlace = {},
): Promise<GateResult> {
  const local = ctx.env.backend === "local";
  // The bash grammar loads on the first screened command; if it cannot, the splitter is used.
  await loadShellGrammar();
  let detection: Detection;
  const scope = ctx.scope;
  const own = scope?.own;
  const ownFolder = own?.work;
  const cwd = where.cwd ?? ctx.env.getCwd();
  try {
    detection = detectCommand(command, {
      cwd,
      home: ctx.env.resolvePath("~"),
      hermesHome: ctx.home,
      ...(ownFolder ? { ownFolder } : {}),
      // Symbolic links are followed where the files are this machine's.
      followLinks: local,
      // A chat user's commands reach only their own places; on other backends HERMES_HOME is not there.
      ...(scope && own && local ? { confine: { ...own, memoryDir: scope.memoryDir } } : {}),
    });
  } catch {
    detection = { hardline: [], dangerous: [], warnings: [], modifies: [] };
  }
  const session = sessionFor(ctx);
  // "For this session" answers outlive compression, which gives the conversation a new row id.
  const conversation = ctx.conversationId ?? ctx.sessionId;
  const warning = warningOf(detection);
  const annotate = (result: string): string => addWarning(result, warning);
  const ok: GateResult = warning ? { allowed: true, warning, annotate } : { allowed: true, annotate };
  const record = (outcome: ApprovalOutcome, matches: readonly PatternMatch[], reason?: string): void =>
    session.record({
      command,
      outcome,
      keys: matches.map((m) => m.key),
      sessionId: ctx.sessionId,
      ...(reason ? { reason } : {}),
    });

  if (local && detection.hardline.length > 0) {
    record("hardline", detection.hardline);
    if (detection.hardline.some((m) => m.key === CHAT_USER_SCOPE_KEY))
      return deny(
        `Blocked: ${listReasons(detection.hardline)}. Commands in this chat may reach only your own ` +
          `folder${ownFolder ? ` (${ownFolder})` : ""}, your memory (change it with the memory tool) and ` +
          "the skills; other users' folders and Hermes's private files are out of reach, and no approval " +
          "changes that. Do not try to work around the block.",
        { blocked: "hardline" },
      );
    return deny(
      `Blocked: ${listReasons(detection.hardline)}. Hermes never runs this on the local machine, not even ` +
        "with --yolo or approvals.mode: off. Do not try to work around the block; if the user really " +
        "wants this, they must run it themselves.",
      { blocked: "hardline" },
    );
  }
  if (CONTAINER_BACKENDS.has(ctx.env.backend)) return ok;
  // Off the local machine (ssh) hardline rules are exempt but still need approval like the rest.
  const risky = local ? detection.dangerous : [...detection.hardline, ...detection.dangerous];
  if (risky.length === 0) return ok;
  if (session.yolo) {
    record("yolo", risky);
    return ok;
  }
  if (session.mode === "off") {
    record("mode_off", risky);
    return ok;
  }
  if (session.isApproved(risky, conversation)) {
    record("allowlisted", risky);
    return ok;
  }

  let judgeNote: string | undefined;
  if (session.mode === "smart" && session.judge) {
    let verdict = session.cachedVerdict(command);
    if (!verdict) {
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(JUDGE_TIMEOUT_MS)]);
      verdict = await session.judge.assess({ command, reasons: risky, cwd }, signal);
      if (verdict.decision !== "escalate") session.rememberVerdict(command, verdict);
    }
    if (ctx.signal.aborted) return deny("Interrupted by the user before this command ran.");
    if (verdict.decision === "approve") {
      record("judge_approved", risky, verdict.reason);
      return ok;
    }
    if (verdict.decision === "deny") {
      record("judge_denied", risky, verdict.reason);
      return deny(
        `Blocked by the approval check: ${verdict.reason} (flagged as: ${listReasons(risky)}). Use a safer ` +
          "alternative, or ask the user to run it themselves or to rerun with --yolo.",
        { blocked: "approval_model" },
      );
    }
    judgeNote = verdict.reason;
  }

  const approve = ctx.approve;
  if (!ctx.interactive || !approve) {
    record("no_one_to_ask", risky);
    return deny(
      `Command needs approval and this run has no one to ask: ${listReasons(risky)}. Use a safer ` +
        "alternative or ask the user to rerun with --yolo.",
      { blocked: "needs_approval" },
    );
  }

  return session.serialize(async (): Promise<GateResult> => {
    // An answer to an earlier prompt ("session"/"always") may already cover this one.
    if (session.isApproved(risky, conversation)) {
      record("allowlisted", risky);
      return ok;
    }
    if (ctx.signal.aborted) return deny("Interrupted by the user before this command ran.");
    const timeout = AbortSignal.timeout(session.timeoutMs);
    const signal = AbortSignal.any([ctx.signal, timeout]);
    let choice: ApprovalChoice;
    try {
      choice = await Promise.race([
        approve({
          command,
          reasons: risky,
          timeoutMs: session.timeoutMs,
          signal,
          ...(judgeNote ? { judgeNote } : {}),
        }),
        new Promise<ApprovalChoice>((resolve) => signal.addEventListener("abort", () => resolve("deny"))),
      ]);
    } catch {
      choice = "deny";
    }
    if (ctx.signal.aborted) {
      record("interrupted", risky);
      return deny("Interrupted by the user before this command ran.");
    }
    if (timeout.aborted && choice === "deny") {
      record("timeout", risky);
      const secs = Number((session.timeoutMs / 1000).toFixed(1));
      return deny(
        `No answer to the approval prompt within ${secs} s, so the command was not run (${listReasons(risky)}). ` +
          "Use a safer alternative or ask the user.",
        { blocked: "approval_timeout" },
      );
    }
    switch (choice) {
      case "once":
        record("user_once", risky);
        return ok;
      case "session":
        session.approveForSession(risky, conversation);
        record("user_session", risky);
        return ok;
      case "always": {
        const problem = session.approveAlways(risky);
        record("user_always", risky, problem);
        return ok;
      }
      case "deny":
        record("user_denied", risky);
        return deny(
          `The user denied this command (${listReasons(risky)}). Do not run it again; use a safer ` +
            "alternative or ask the user how to proceed.",
          { blocked: "user_denied" },
        );
    }
  });
}
