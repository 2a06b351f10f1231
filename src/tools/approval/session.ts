import { existsSync } from "node:fs";
import { loadConfig, setConfigValue } from "../../core/config.js";
import type { ApprovalJudge, JudgeVerdict } from "./judge.js";
import type { ApprovalMode, PatternMatch } from "./types.js";

/**
 * The approval state of one run: the mode, yolo (switchable mid-session with /yolo), what the user
 * approved for the session (per session id, per pattern), the permanent allowlist
 * (`command_allowlist` in config.yaml) and the smart judge's verdicts. Created once per process by
 * the entry point and handed to every tool call; nothing is read from the environment later.
 */

export type ApprovalOutcome =
  | "hardline"
  | "no_match"
  | "container"
  | "yolo"
  | "mode_off"
  | "allowlisted"
  | "judge_approved"
  | "judge_denied"
  | "user_once"
  | "user_session"
  | "user_always"
  | "user_denied"
  | "timeout"
  | "interrupted"
  | "no_one_to_ask";

export interface ApprovalDecisionEvent {
  command: string;
  outcome: ApprovalOutcome;
  keys: string[];
  sessionId: string;
  reason?: string;
}

export interface ApprovalSessionOptions {
  mode: ApprovalMode;
  /** approvals.timeout, seconds. */
  timeoutSeconds: number;
  /** command_allowlist: pattern keys (or the original's descriptions) approved for good. */
  allowlist?: readonly string[];
  /** config.yaml that "always" writes to; absent = remembered for this process only. */
  configPath?: string;
  yolo?: boolean;
  judge?: ApprovalJudge;
  /** Every decision, for the log. Must not throw. */
  onDecision?: (event: ApprovalDecisionEvent) => void;
}

export const APPROVAL_MODES: readonly ApprovalMode[] = ["manual", "smart", "off"];

export function parseApprovalMode(value: unknown): ApprovalMode {
  return APPROVAL_MODES.includes(value as ApprovalMode) ? (value as ApprovalMode) : "smart";
}

export class ApprovalSession {
  /** --yolo / /yolo: dangerous commands run without asking (hardline rules still apply). */
  yolo: boolean;
  readonly mode: ApprovalMode;
  readonly timeoutMs: number;
  readonly judge: ApprovalJudge | undefined;
  private readonly configPath: string | undefined;
  private readonly allowlist: Set<string>;
  private readonly sessions = new Map<string, Set<string>>();
  private readonly verdicts = new Map<string, JudgeVerdict>();
  private readonly onDecision: ((event: ApprovalDecisionEvent) => void) | undefined;
  /** Prompts wait for each other: one question on the terminal at a time. */
  private promptChain: Promise<unknown> = Promise.resolve();

  constructor(opts: ApprovalSessionOptions) {
    this.mode = opts.mode;
    this.timeoutMs = Math.max(0.05, opts.timeoutSeconds) * 1000;
    this.allowlist = new Set(opts.allowlist ?? []);
    this.configPath = opts.configPath;
    this.yolo = opts.yolo ?? false;
    this.judge = opts.judge;
    this.onDecision = opts.onDecision;
  }

  /** True when every match is approved for this session or on the allowlist. */
  isApproved(matches: readonly PatternMatch[], sessionId: string): boolean {
    const session = this.sessions.get(sessionId);
    return matches.every(
      (m) => this.allowlist.has(m.key) || this.allowlist.has(m.description) || session?.has(m.key) === true,
    );
  }

  /** Whether the allowlist alone covers the matches (for logging which rule let a command through). */
  isAllowlisted(matches: readonly PatternMatch[]): boolean {
    return matches.every((m) => this.allowlist.has(m.key) || this.allowlist.has(m.description));
  }

  approveForSession(matches: readonly PatternMatch[], sessionId: string): void {
    let set = this.sessions.get(sessionId);
    if (!set) {
      set = new Set();
      this.sessions.set(sessionId, set);
    }
    for (const m of matches) set.add(m.key);
  }

  /**
   * Adds the patterns to the allowlist and to `command_allowlist` in config.yaml (comments kept;
   * entries written by other processes meanwhile kept too). Returns a problem, or undefined.
   */
  approveAlways(matches: readonly PatternMatch[]): string | undefined {
    for (const m of matches) this.allowlist.add(m.key);
    if (!this.configPath) return undefined;
    try {
      const current = existsSync(this.configPath) ? loadConfig(this.configPath).config.command_allowlist : [];
      const next = [...new Set([...current, ...matches.map((m) => m.key)])];
      if (next.length !== current.length) setConfigValue(this.configPath, "command_allowlist", next);
      return undefined;
    } catch (err) {
      return `could not save to ${this.configPath}: ${(err as Error).message}`;
    }
  }

  cachedVerdict(command: string): JudgeVerdict | undefined {
    return this.verdicts.get(command);
  }

  rememberVerdict(command: string, verdict: JudgeVerdict): void {
    if (this.verdicts.size > 500) this.verdicts.clear();
    this.verdicts.set(command, verdict);
  }

  /** Runs `fn` after every earlier prompt has finished. */
  serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.promptChain.then(fn, fn);
    this.promptChain = run.catch(() => undefined);
    return run;
  }

  record(event: ApprovalDecisionEvent): void {
    try {
      this.onDecision?.(event);
    } catch {
      // logging must never change a decision
    }
  }
}
