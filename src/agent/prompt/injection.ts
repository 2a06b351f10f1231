/**
 * Prompt-injection scan for files that go into the system prompt (context files, SOUL.md). A file
 * that trips any pattern is replaced whole by a one-line notice: partial cleaning would still let
 * an attacker shape the prompt.
 */

const THREAT_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /(?:ignore|disregard|forget)\s+(?:all\s+)?(?:of\s+)?(?:your\s+|the\s+)?(?:previous|all|above|prior|earlier)\s+(?:instructions|rules|directions)/i,
    "prompt_injection",
  ],
  [/do\s+not\s+(?:tell|inform|let)\s+the\s+user/i, "deception_hide"],
  [/system\s+prompt\s+override/i, "sys_prompt_override"],
  [/(?:curl|wget)\s+[^\n]*\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD)/i, "exfil_curl"],
  [/cat\s+[^\n]*(?:\.env\b|credentials|\.netrc|auth\.json|id_rsa)/i, "read_secrets"],
  [/<!--[^>]*(?:ignore|override|system|secret|hidden)[^>]*-->/i, "html_comment_injection"],
  [/<\s*div\s+style\s*=\s*["'][\s\S]*?display\s*:\s*none/i, "hidden_div"],
];

/** Zero-width characters, bidi overrides/isolates and Unicode tag characters. */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/u;

/** Reasons the text looks like an injection attempt; empty when clean. */
export function scanForInjection(text: string): string[] {
  const reasons: string[] = [];
  for (const [re, reason] of THREAT_PATTERNS)
    if (re.test(text) && !reasons.includes(reason)) reasons.push(reason);
  if (INVISIBLE.test(text)) reasons.push("invisible_unicode");
  return reasons;
}

export const blockedNotice = (file: string, reasons: readonly string[]): string =>
  `[BLOCKED: ${file} contained possible prompt injection (${reasons.join(", ")})]`;

/** The text itself, or the BLOCKED notice when the scan finds something. */
export function guardPromptText(file: string, text: string): { text: string; blocked: boolean } {
  const reasons = scanForInjection(text);
  return reasons.length > 0
    ? { text: blockedNotice(file, reasons), blocked: true }
    : { text, blocked: false };
}
