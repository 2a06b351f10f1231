/**
 * Shapes of the skill security scan. A scan reads a skill's files and reports findings; the
 * findings make a verdict; the verdict and the source's trust level make the install decision.
 */

/** critical → dangerous verdict; high → caution; medium and low are informational (safe). */
export type FindingSeverity = "critical" | "high" | "medium" | "low";

export type FindingCategory =
  | "exfiltration"
  | "remote_code"
  | "destructive"
  | "persistence"
  | "injection"
  | "obfuscation"
  | "structure";

export interface Finding {
  /** Stable rule id, e.g. `remote_pipe_shell`. */
  rule: string;
  severity: FindingSeverity;
  category: FindingCategory;
  /** Path inside the skill, `/`-separated. */
  file: string;
  /** 1-based; 0 for findings about the file or folder as a whole. */
  line: number;
  /** What the rule saw, trimmed to one short line. */
  match: string;
  description: string;
}

export type Verdict = "safe" | "caution" | "dangerous";

/** bundled: shipped with Hermes; trusted: a source listed in `skills.trusted_sources`. */
export type TrustLevel = "bundled" | "trusted" | "community" | "agent-created";

export interface ScanResult {
  /** The scanned folder's name (the skill's name is in SKILL.md). */
  name: string;
  verdict: Verdict;
  findings: Finding[];
  /** Files whose text was read. */
  filesScanned: number;
}

/** A shell command judged by another screen (the terminal's approval rules). */
export interface ScreenedCommand {
  rule: string;
  description: string;
  severity: FindingSeverity;
  category: FindingCategory;
}

/**
 * Screens that live in other layers, handed in by whoever assembles the scan (the CLI, the
 * runtime). Without them the scan still applies its own rules.
 */
export interface GuardScreens {
  /** Judges one shell command line; returns what it found (empty when harmless). */
  command?: (line: string) => ScreenedCommand[];
  /** Judges markdown meant for the model; returns reason ids (empty when clean). */
  prose?: (text: string) => string[];
}

export interface ScanOptions {
  screens?: GuardScreens;
}
