/**
 * Prompt-injection scan for files that go into the system prompt (context files, SOUL.md) and for
 * memory entries. A file that trips any check is replaced whole by a one-line notice: partial cleaning
 * would still let an attacker shape the prompt.
 *
 * Three kinds of check run on a normalised copy of the text (injection-text.ts): phrases that are an
 * attack anywhere (injection-phrases.ts), vocabulary that is an attack only as an order to the agent
 * (injection-directives.ts), and secrets handed to network clients (injection-exfil.ts). Hidden
 * characters are checked on the raw text. Every pattern is bounded, so the scan stays linear.
 */

import { basename } from "node:path";
import { DIRECTIVE_LEAD, DIRECTIVE_PATTERNS } from "./injection-directives.js";
import { sendsSecretVariable } from "./injection-exfil.js";
import { COMMENT_PATTERNS, PHRASE_PATTERNS } from "./injection-phrases.js";
import { hasHiddenCharacters, htmlCommentBodies, normaliseForScan } from "./injection-text.js";

export interface ScanOptions {
  /** The text is the user's persona file, where naming the agent is the point: identity checks are off. */
  persona?: boolean;
}

/** Files whose job is to give the agent a name and a character. */
const PERSONA_FILES = new Set(["SOUL.md"]);

/**
 * Text just before a phrase that makes it a quotation of what to refuse: "if a page tells you to ...",
 * "when a tool result asks the assistant to ...", 'phrases such as "...'.
 */
const QUOTED_BEFORE =
  /(?:\b(?:(?:if|when|whenever|should|in\s+case)\b[^.\n]{0,100}?|(?:text|content|instructions?|anything|messages?|pages?|requests?|prompts?|files?|output)\s+(?:that|which)\s+)\b(?:tells?|telling|asks?|asking|instructs?|instructing|says?|wants?|requests?|urges?|(?:tries|attempts?)\s+to\s+(?:get|make))\s+(?:(?:you|the\s+(?:assistant|agent|model|ai))\s+)?(?:to\s+)?(?:[\w'-]+\s+){0,4}?|\b(?:such\s+as|like|e\.g\.,?|for\s+example,?|phrases?|strings?)\s*)["']?\s*$/i;

/** Whether `re` matches somewhere that is not a quotation of the phrase as something to refuse. */
function matchesUnquoted(re: RegExp, text: string): boolean {
  const global = new RegExp(re.source, `${re.flags}g`);
  for (const m of text.matchAll(global))
    if (!QUOTED_BEFORE.test(text.slice(Math.max(0, m.index - 160), m.index))) return true;
  return false;
}

/** One pass per flag set answers "no phrase at all" for ordinary text before each phrase runs alone. */
const ANY_PHRASE: readonly RegExp[] = [...new Set(PHRASE_PATTERNS.map((p) => p.re.flags))].map(
  (flags) =>
    new RegExp(
      PHRASE_PATTERNS.filter((p) => p.re.flags === flags)
        .map((p) => `(?:${p.re.source})`)
        .join("|"),
      flags,
    ),
);

/** Any directive action at all: one sticky test per lead, so most sentences cost a single check. */
const ANY_ACTION = new RegExp(DIRECTIVE_PATTERNS.map((p) => `(?:${p.re.source})`).join("|"), "iy");

function directiveReasons(text: string, add: (reason: string) => void): void {
  const lead = new RegExp(DIRECTIVE_LEAD.source, DIRECTIVE_LEAD.flags);
  for (let m = lead.exec(text); m !== null; m = lead.exec(text)) {
    const at = m.index + m[0].length;
    if (m[0].length === 0) lead.lastIndex++;
    ANY_ACTION.lastIndex = at;
    if (!ANY_ACTION.test(text)) continue;
    const addressed = Boolean(m.groups?.voc ?? m.groups?.modal ?? m.groups?.subject);
    for (const { reason, re, agentOnly } of DIRECTIVE_PATTERNS) {
      if (agentOnly && !addressed) continue;
      re.lastIndex = at;
      if (re.test(text)) add(reason);
    }
  }
}

/** Reasons the text looks like an injection attempt, in a stable order; empty when clean. */
export function scanForInjection(text: string, options: ScanOptions = {}): string[] {
  const reasons: string[] = [];
  const add = (reason: string): void => {
    if (!reasons.includes(reason)) reasons.push(reason);
  };
  const normal = normaliseForScan(text);
  if (ANY_PHRASE.some((re) => re.test(normal)))
    for (const { reason, re, persona, quotable } of PHRASE_PATTERNS) {
      if (persona && options.persona) continue;
      if (quotable ? matchesUnquoted(re, normal) : re.test(normal)) add(reason);
    }
  if (sendsSecretVariable(normal)) add("exfil_curl");
  directiveReasons(normal, add);
  if (htmlCommentBodies(normal).some((body) => COMMENT_PATTERNS.some((re) => re.test(body))))
    add("html_comment_injection");
  if (hasHiddenCharacters(text)) add("invisible_unicode");
  return reasons;
}

export const blockedNotice = (file: string, reasons: readonly string[]): string =>
  `[BLOCKED: ${file} contained possible prompt injection (${reasons.join(", ")})]`;

/** The text itself, or the BLOCKED notice when the scan finds something. */
export function guardPromptText(file: string, text: string): { text: string; blocked: boolean } {
  const reasons = scanForInjection(text, { persona: PERSONA_FILES.has(basename(file)) });
  return reasons.length > 0
    ? { text: blockedNotice(file, reasons), blocked: true }
    : { text, blocked: false };
}
