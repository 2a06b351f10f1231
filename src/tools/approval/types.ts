import type { Command } from "./commands.js";

/** hardline: never run on the local backend; dangerous: needs approval; warn: a note in the result. */
export type Severity = "hardline" | "dangerous" | "warn";

export type PatternClass =
  | "delete"
  | "disk"
  | "sql"
  | "system_config"
  | "permissions"
  | "service"
  | "power"
  | "remote_code"
  | "fork_bomb"
  | "process"
  | "network"
  | "git"
  | "scheduler"
  | "accounts"
  | "containers"
  | "cloud"
  | "publish"
  | "history"
  | "packages"
  | "security"
  | "exfiltration";

export interface CommandPattern {
  /** Stable id: what session approvals and `command_allowlist` store. */
  key: string;
  /** Why it is risky, in words the user and the model read. */
  description: string;
  class: PatternClass;
  /** Programs (after wrappers such as sudo) this pattern concerns; omitted = every command. */
  programs?: readonly string[];
  /** Matched against each simple command (a RegExp runs on `Command.text`). */
  test?: RegExp | ((cmd: Command) => boolean);
  /** Matched once against the whole command, whitespace collapsed (fork bombs). */
  raw?: RegExp;
}

export interface PatternMatch {
  key: string;
  description: string;
  class: PatternClass;
  severity: Severity;
  /** The simple command that matched (normalised), or the whole command for raw patterns. */
  command: string;
}

/** What the user may answer to an approval prompt. */
export type ApprovalChoice = "once" | "session" | "always" | "deny";

export interface ApprovalRequest {
  command: string;
  /** The rules it matched, for the prompt. */
  reasons: readonly PatternMatch[];
  /** Smart mode: why the approval model could not decide. */
  judgeNote?: string;
  /** How long the prompt may wait; `signal` fires when it is over. */
  timeoutMs: number;
  /** Aborted on timeout or when the user interrupts the turn: answer "deny" then. */
  signal: AbortSignal;
}

/** Asks a person. Must resolve (never reject) and must honour `signal`. */
export type ApproveFn = (request: ApprovalRequest) => Promise<ApprovalChoice>;

export type ApprovalMode = "manual" | "smart" | "off";
