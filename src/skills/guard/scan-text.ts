import { hiddenPayloads, type PayloadKind } from "./decode.js";
import { isQuoted, type Rule } from "./rule.js";
import { EXEC_RULES } from "./rules-exec.js";
import { EXFIL_RULES } from "./rules-exfil.js";
import { OBFUSCATION_RULES } from "./rules-obfuscation.js";
import { PERSIST_RULES } from "./rules-persist.js";
import { COMMENT_ORDER, PROSE_RULES } from "./rules-prose.js";
import {
  clip,
  hiddenCharacters,
  inlineCode,
  lineAt,
  type Segment,
  segmentsOf,
  squashed,
  visibleText,
} from "./text.js";
import type { Finding, FindingSeverity, GuardScreens } from "./types.js";

/** Every rule, in report order. */
export const RULES: readonly Rule[] = [
  ...EXFIL_RULES,
  ...EXEC_RULES,
  ...PERSIST_RULES,
  ...OBFUSCATION_RULES,
  ...PROSE_RULES,
];

/** How deep decoded text is decoded again (base64 of hex of …). */
const MAX_DEPTH = 2;
const MARKDOWN = /\.(?:md|markdown|mdx|txt)$/i;

const RANK: Record<FindingSeverity, number> = { critical: 3, high: 2, medium: 1, low: 0 };
export const worse = (a: FindingSeverity, b: FindingSeverity): FindingSeverity =>
  RANK[a] >= RANK[b] ? a : b;

const PAYLOAD_WORDS: Record<PayloadKind, string> = {
  base64: "base64",
  hex: "hex-encoded",
  "char-codes": "character-code",
  reversed: "reversed",
  rot13: "ROT13",
};

class Collector {
  readonly findings: Finding[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly file: string) {}

  add(f: Omit<Finding, "file">): void {
    const key = `${f.rule}\0${f.line}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.findings.push({ ...f, file: this.file });
  }
}

function variants(seg: Segment): string[] {
  const out = [seg.text];
  const visible = seg.kind === "prose" ? visibleText(seg.text) : undefined;
  if (visible !== undefined && visible !== seg.text) out.push(visible);
  const squash = squashed(visible ?? seg.text);
  if (squash !== undefined) out.push(squash);
  return out;
}

/** The first match of a rule in `text` that counts (quoted phrases skipped for quotable rules). */
function firstHit(rule: Rule, text: string): RegExpExecArray | undefined {
  if (!rule.quotable) return rule.re.exec(text) ?? undefined;
  const all = new RegExp(rule.re.source, `${rule.re.flags.replace("g", "")}g`);
  for (const m of text.matchAll(all)) if (!isQuoted(text, m.index)) return m as RegExpExecArray;
  return undefined;
}

function applyRules(seg: Segment, out: Collector): void {
  const texts = variants(seg);
  for (const rule of RULES) {
    if (rule.kind && rule.kind !== seg.kind) continue;
    for (const text of texts) {
      const m = firstHit(rule, text);
      if (!m || rule.unless?.test(text)) continue;
      out.add({
        rule: rule.id,
        severity: rule.grade?.(text) ?? rule.severity,
        category: rule.category,
        line: lineAt(seg, Math.min(m.index, seg.text.length)),
        match: clip(m[0]),
        description: rule.description,
      });
      break;
    }
  }
}

function applyCommandScreen(
  seg: Segment,
  screen: NonNullable<GuardScreens["command"]>,
  out: Collector,
): void {
  const commands =
    seg.kind === "code"
      ? seg.shell
        ? [{ code: seg.text, offset: 0 }]
        : []
      : inlineCode(seg.text).filter((c) => /\s/.test(c.code));
  for (const { code, offset } of commands) {
    if (code.trim() === "" || code.trimStart().startsWith("#")) continue;
    for (const hit of screen(code)) {
      out.add({
        rule: hit.rule,
        severity: hit.severity,
        category: hit.category,
        line: lineAt(seg, offset),
        match: clip(code),
        description: hit.description,
      });
    }
  }
}

/** Decoded payloads of a segment, read again with every rule. */
function applyDecoding(seg: Segment, screens: GuardScreens, depth: number, out: Collector): void {
  const { payloads, blobs } = hiddenPayloads(seg.text);
  for (const blob of blobs) {
    out.add({
      rule: "obf_long_base64",
      severity: blob.content === "media" ? "low" : "high",
      category: "obfuscation",
      line: lineAt(seg, blob.offset),
      match: `${blob.length} base64 characters`,
      description:
        blob.content === "media"
          ? "an embedded picture or font in base64"
          : "a long base64 blob (content a reader cannot review)",
    });
  }
  if (depth >= MAX_DEPTH) return;
  for (const payload of payloads) {
    const inner = scanText("decoded.sh", payload.text, { screens }, depth + 1).filter(
      (f) => RANK[f.severity] >= RANK.high,
    );
    if (inner.length === 0) continue;
    const severity = inner.some((f) => f.severity === "critical") ? "critical" : "high";
    out.add({
      rule: "hidden_payload",
      severity,
      category: "obfuscation",
      line: lineAt(seg, payload.offset),
      match: clip(payload.text),
      description: `${PAYLOAD_WORDS[payload.kind]} text that decodes to: ${[...new Set(inner.map((f) => f.description))].join("; ")}`,
    });
  }
}

function applyHiddenCharacters(text: string, out: Collector): void {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const codes = hiddenCharacters(lines[i]!, i === 0);
    if (codes.length === 0) continue;
    out.add({
      rule: "invisible_unicode",
      severity: "high",
      category: "injection",
      line: i + 1,
      match: codes.map((c) => `U+${c}`).join(" "),
      description: "invisible characters (zero-width, bidirectional or tag) that hide text from a reader",
    });
  }
}

function applyComments(text: string, out: Collector): void {
  for (const m of text.matchAll(/<!--([\s\S]{0,4000}?)-->/g)) {
    if (!COMMENT_ORDER.test(visibleText(m[1]!))) continue;
    out.add({
      rule: "inject_html_comment",
      severity: "high",
      category: "injection",
      line: text.slice(0, m.index).split("\n").length,
      match: clip(m[0]),
      description: "an HTML comment (invisible when rendered) that addresses the model",
    });
  }
}

/** Reason ids of the context-file screen that only mean "look closer", not an attack. */
const MILD_PROSE_REASONS = new Set(["hidden_div", "html_comment_injection"]);
/**
 * Reasons the skill rules judge more finely: a token in the Authorization header of its own API is
 * how a skill calls an API, while a context file has no business doing it.
 */
const SKIPPED_PROSE_REASONS = new Set(["invisible_unicode", "exfil_curl"]);

function applyProseScreen(
  text: string,
  segments: readonly Segment[],
  screen: NonNullable<GuardScreens["prose"]>,
  out: Collector,
): void {
  const reasons = screen(text).filter((r) => !SKIPPED_PROSE_REASONS.has(r));
  if (reasons.length === 0) return;
  const located = new Map<string, Segment>();
  for (const seg of segments) {
    if (located.size === reasons.length) break;
    for (const r of screen(seg.text)) if (reasons.includes(r) && !located.has(r)) located.set(r, seg);
  }
  for (const reason of reasons) {
    const seg = located.get(reason);
    out.add({
      rule: `prompt_${reason}`,
      severity: MILD_PROSE_REASONS.has(reason) ? "high" : "critical",
      category: "injection",
      line: seg?.line ?? 1,
      match: clip(seg?.text ?? text),
      description: `text aimed at the model: ${reason.replace(/_/g, " ")}`,
    });
  }
}

/**
 * Findings of one file's text. `path` is the file's path inside the skill (its extension says
 * how the text is read). Never throws.
 */
export function scanText(
  path: string,
  text: string,
  options: { screens?: GuardScreens } = {},
  depth = 0,
): Finding[] {
  const out = new Collector(path);
  const screens = options.screens ?? {};
  const segments = segmentsOf(path, text);
  for (const seg of segments) {
    applyRules(seg, out);
    if (screens.command) applyCommandScreen(seg, screens.command, out);
    applyDecoding(seg, screens, depth, out);
  }
  if (depth === 0) {
    applyHiddenCharacters(text, out);
    if (MARKDOWN.test(path)) {
      applyComments(text, out);
      if (screens.prose) applyProseScreen(text, segments, screens.prose, out);
    }
  }
  return out.findings;
}
