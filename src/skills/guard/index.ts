/** The skill security scan: rules, verdicts, trust and the install policy. */
export {
  BUILTIN_TRUSTED_SOURCES,
  decideInstall,
  type InstallDecision,
  normaliseSource,
  trustOfUrl,
} from "./policy.js";
export { formatFindings, formatScanReport } from "./report.js";
export { scanSkillDir, scanSkillText, verdictOf } from "./scan.js";
export { RULES, scanText } from "./scan-text.js";
export type {
  Finding,
  FindingCategory,
  FindingSeverity,
  GuardScreens,
  ScanOptions,
  ScanResult,
  ScreenedCommand,
  TrustLevel,
  Verdict,
} from "./types.js";
