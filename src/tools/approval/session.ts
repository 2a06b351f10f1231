import { existsSync } from "node:fs";
import { loadConfig, setConfigValue } from "../../core/config.js";
import type { ApprovalJudge, JudgeVerdict } from "./judge.js";
import type { ApprovalMode, PatternMatch } from "./types.js";

/**
 * Approval state in two parts. `ApprovalPolicy` is what one process shares between its
 * conversations: the configured mode and prompt timeout, the permanent allowlist
 * (`command_allowlist` in config.yaml), the smart judge and its verdicts, the decision log.
 * `ApprovalSession` is one conversation's own: a mode override, yolo (/yolo), what the user approved
 * "for this session", and the queue that keeps its prompts one at a time. One chat's yolo or pending
 * question never reaches another chat. Nothing is read from the environment after creation.
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

export interface ApprovalPolicyOptions {
  mode: ApprovalMode;
  /** approvals.timeout, seconds. */
  timeoutSeconds: number;
  /** command_allowlist: pattern keys (or the original's descriptions) approved for good. */
  allowlist?: readonly string[];
  /** config.yaml that "always" writes to; absent = remembered for this process only. */
  configPath?: string;
  judge?: ApprovalJudge;
  /** Every decision, for the log. Must not throw. */
  onDecision?: (event: ApprovalDecisionEvent) => void;
}

/** A conversation with a policy of its own (tests, single-conversation tools). */
export interface ApprovalSessionOptions extends ApprovalPolicyOptions {
  yolo?: boolean;
}

/** What one conversation may set for itself on top of the shared policy. */
export interface ConversationApprovals {
  /** Overrides the policy's mode for this conversation only. */
  mode?: ApprovalMode;
  /** --yolo / /yolo for this conversation. */
  yolo?: boolean;
}

export const APPROVAL_MODES: readonly ApprovalMode[] = ["manual", "smart", "off"];

export function parseApprovalMode(value: unknown): ApprovalMode {
  return APPROVAL_MODES.includes(value as ApprovalMode) ? (value as ApprovalMode) : "smart";
}

/** The approval state every conversation of a process shares. */
export class ApprovalPolicy {
  readonly mode: ApprovalMode;
  readonly timeoutMs: number;
  readonly judge: ApprovalJudge | undefined;
  private readonly configPath: string | undefined;
  private readonly allowlist: Set<string>;
  private readonly verdicts = new Map<string, JudgeVerdict>();
  private readonly onDecision: ((event: ApprovalDecisionEvent) => void) | undefined;

  constructor(opts: ApprovalPolicyOptions) {
    this.mode = opts.mode;
    this.timeoutMs = Math.max(0.05, opts.timeoutSeconds) * 1000;
    this.allowlist = new Set(opts.allowlist ?? []);
    this.configPath = opts.configPath;
    this.judge = opts.judge;
    this.onDecision = opts.onDecision;
  }

  /** Whether the allowlist covers every match. */
  isAllowlisted(matches: readonly PatternMatch[]): boolean {
    return matches.every((m) => this.allowlist.has(m.key) || this.allowlist.has(m.description));
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

  record(event: ApprovalDecisionEvent): void {
    try {
      this.onDecision?.(event);
    } catch {
      // logging must never change a decision
    }
  }
}

/** One conversation's approval state, on top of a shared policy. */
export class ApprovalSession {
  /** --yolo / /yolo: dangerous commands run without asking (hardline rules still apply). */
  yolo: boolean;
  /** This conversation's mode when it differs from the policy's; undefined follows the policy. */
  modeOverride: ApprovalMode | undefined;
  readonly policy: ApprovalPolicy;
  /**
   * "Approve for this session" answers, per conversation id: subagents share their parent's state
   * (its yolo and mode) but not what the user approved for the parent's conversation.
   */
  private readonly grants = new Map<string, Set<string>>();
  /** Prompts wait for each other: one question at a time in this conversation. */
  private promptChain: Promise<unknown> = Promise.resolve();

  /** `new ApprovalSession(policy, {yolo})` for a conversation of a shared policy; options alone make both. */
  constructor(source: ApprovalPolicy | ApprovalSessionOptions, own: ConversationApprovals = {}) {
    this.policy = source instanceof ApprovalPolicy ? source : new ApprovalPolicy(source);
    this.yolo = own.yolo ?? (source instanceof ApprovalPolicy ? false : (source.yolo ?? false));
    this.modeOverride = own.mode;
  }

  get mode(): ApprovalMode {
    return this.modeOverride ?? this.policy.mode;
  }

  get timeoutMs(): number {
    return this.policy.timeoutMs;
  }

  get judge(): ApprovalJudge | undefined {
    return this.policy.judge;
  }

  /** True when every match is approved for the conversation or on the allowlist. */
  isApproved(matches: readonly PatternMatch[], conversationId: string): boolean {
    const granted = this.grants.get(conversationId);
    return matches.every((m) => this.policy.isAllowlisted([m]) || granted?.has(m.key) === true);
  }

  /** Whether the allowlist alone covers the matches (for logging which rule let a command through). */
  isAllowlisted(matches: readonly PatternMatch[]): boolean {
    return this.policy.isAllowlisted(matches);
  }

  approveForSession(matches: readonly PatternMatch[], conversationId: string): void {
    let set = this.grants.get(conversationId);
    if (!set) {
      set = new Set();
      this.grants.set(conversationId, set);
    }
    for (const m of matches) set.add(m.key);
  }

  approveAlways(matches: readonly PatternMatch[]): string | undefined {
    return this.policy.approveAlways(matches);
  }

  cachedVerdict(command: string): JudgeVerdict | undefined {
    return this.policy.cachedVerdict(command);
  }

  rememberVerdict(command: string, verdict: JudgeVerdict): void {
    this.policy.rememberVerdict(command, verdict);
  }

  /** Runs `fn` after every earlier prompt of this conversation has finished. */
  serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.promptChain.then(fn, fn);
    this.promptChain = run.catch(() => undefined);
    return run;
  }

  record(event: ApprovalDecisionEvent): void {
    this.policy.record(event);
  }
}
