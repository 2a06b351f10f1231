import { isRecord } from "../core/is-record.js";
/**
 * Repair of malformed tool-call arguments (seed 004 §14). Local models (Ollama, llama.cpp) emit
 * sloppy JSON; replaying such a string makes some providers answer HTTP 400 on every later turn,
 * so the agent stores the repaired object instead. A repair may fix the spelling of complete
 * values (quotes, commas, literals) but never guesses structure: `{"command": "git clone ht` must
 * not run as `git clone ht`, and `{"cmd": "ls", "args": ["-la"` must not run as if nothing
 * followed, so text cut off inside a value or with brackets left open comes back `truncated`,
 * text whose brackets do not pair up comes back `mismatched`, and the call fails instead.
 */

export interface RepairResult {
  /** The arguments object; `{}` when nothing usable could be recovered. */
  args: Record<string, unknown>;
  /** True when the raw text was not valid JSON as-is (or not an object) and had to be changed. */
  repaired: boolean;
  /** True when repair gave up and `args` is the empty fallback. */
  fallback: boolean;
  /**
   * True when the text stops inside a value (an unterminated string, a key without its value, a
   * half-written literal or number) or with objects and arrays left open, as when the reply hit the
   * output token limit. Implies `fallback`: the call must not run.
   */
  truncated: boolean;
  /**
   * True when a closing bracket has no opener or closes the wrong kind (`{"a": [1, 2}`,
   * `{"a": 1}}`): where the structure was meant to end cannot be known. Implies `fallback`.
   */
  mismatched: boolean;
}

const FAILED: RepairResult = {
  args: {},
  repaired: true,
  fallback: true,
  truncated: false,
  mismatched: false,
};
const TRUNCATED: RepairResult = { ...FAILED, truncated: true };
const MISMATCHED: RepairResult = { ...FAILED, mismatched: true };
const ok = (args: Record<string, unknown>, repaired: boolean): RepairResult => ({
  args,
  repaired,
  fallback: false,
  truncated: false,
  mismatched: false,
});

/**
 * Parses tool-call arguments, repairing what local models typically get wrong: control characters
 * inside strings, trailing commas, code fences, Python literals, single-quoted or unquoted keys.
 * Never throws.
 */
export function repairToolArguments(raw: string): RepairResult {
  if (typeof raw !== "string") return fromValue(raw, true);
  const text = raw.trim();
  if (text === "") return ok({}, false);

  const strict = tryParse(text);
  if (strict.ok) return fromValue(strict.value, false);

  const scanned = scan(stripWrapping(text));
  if (scanned === CUT) return { ...TRUNCATED };
  if (scanned === MISMATCH) return { ...MISMATCHED };
  const parsed = tryParse(scanned);
  return parsed.ok ? fromValue(parsed.value, true) : { ...FAILED };
}

function fromValue(value: unknown, repaired: boolean): RepairResult {
  if (isRecord(value)) return ok(value, repaired);
  // Some models double-encode: the arguments are a JSON string holding the object.
  if (typeof value === "string") {
    const inner = repairToolArguments(value);
    if (inner.truncated) return { ...TRUNCATED };
    if (inner.mismatched) return { ...MISMATCHED };
    if (!inner.fallback && value.trim() !== "") return { ...inner, repaired: true };
  }
  return { ...FAILED };
}

type Parsed = { ok: true; value: unknown } | { ok: false };

function tryParse(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Removes markdown code fences and prose before the first brace that models sometimes add. */
function stripWrapping(text: string): string {
  let t = text;
  const fence = /^```[a-zA-Z]*\s*([\s\S]*?)\s*(?:```)?$/.exec(t);
  if (fence?.[1] !== undefined) t = fence[1];
  if (!/^[{["']/.test(t)) {
    const brace = t.indexOf("{");
    if (brace > 0) t = t.slice(brace);
  }
  return t;
}

/** An open structure and what it expects next (which tells an unquoted key from a bare value). */
interface Frame {
  kind: "{" | "[";
  expect: "key" | "colon" | "value" | "next";
}

const SIMPLE_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t", "u"]);
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /[-+.0-9eE]+/y;
const PY_LITERALS: Record<string, string> = { True: "true", False: "false", None: "null" };

/** What `scan` answers for text that stops inside a value or with structures open. */
const CUT = Symbol("cut");
/** What `scan` answers for a closer without its opener, or of the wrong kind. */
const MISMATCH = Symbol("mismatch");

/**
 * One left-to-right pass that normalises the text into (hopefully) valid JSON; CUT when the text
 * stops inside a value or leaves structures open, MISMATCH when its brackets do not pair up.
 */
function scan(src: string): string | typeof CUT | typeof MISMATCH {
  let out = "";
  const stack: Frame[] = [];
  let quote: '"' | "'" | undefined;
  const startValue = (): void => {
    const top = stack[stack.length - 1];
    if (top) top.expect = "next";
  };

  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (quote) {
      if (c === "\\") {
        const next = src[i + 1];
        if (next === undefined) break; // the text ends inside an escape
        i++;
        if (quote === "'" && next === "'") out += "'";
        else if (SIMPLE_ESCAPES.has(next)) out += c + next;
        else out += `\\\\${next}`; // an invalid escape like \x means a literal backslash
      } else if (c === quote) {
        out += '"';
        quote = undefined;
      } else if (c === '"') {
        out += '\\"'; // a double quote inside a single-quoted string
      } else {
        out += escapeControl(c);
      }
      continue;
    }
    if (/\s/.test(c)) {
      out += c;
      continue;
    }
    if (c === '"' || c === "'") {
      const top = stack[stack.length - 1];
      if (top?.kind === "{" && top.expect === "key") top.expect = "colon";
      else startValue();
      quote = c;
      out += '"';
    } else if (c === "{" || c === "[") {
      startValue();
      stack.push({ kind: c, expect: c === "{" ? "key" : "value" });
      out += c;
    } else if (c === "}" || c === "]") {
      const top = stack.pop();
      if (top?.kind !== (c === "}" ? "{" : "[")) return MISMATCH;
      out = stripTrailingComma(out) + c;
    } else if (c === ":") {
      const top = stack[stack.length - 1];
      if (top?.kind === "{") top.expect = "value";
      out += c;
    } else if (c === ",") {
      const top = stack[stack.length - 1];
      if (top) top.expect = top.kind === "{" ? "key" : "value";
      out += c;
    } else if (/[A-Za-z_]/.test(c)) {
      WORD.lastIndex = i;
      const word = WORD.exec(src)![0];
      i += word.length - 1;
      const top = stack[stack.length - 1];
      if (top?.kind === "{" && top.expect === "key") {
        // An unquoted key (`{path: "a"}`) gets its quotes; one cut off at the end still lacks a value.
        top.expect = "colon";
        out += `"${word}"`;
        continue;
      }
      startValue();
      out += PY_LITERALS[word] ?? word;
    } else if (/[-0-9]/.test(c)) {
      NUMBER.lastIndex = i;
      const num = NUMBER.exec(src)![0];
      startValue();
      out += num;
      i += num.length - 1;
    } else {
      out += c;
    }
  }
  if (quote || stack.length > 0) return CUT;
  return stripTrailingComma(out);
}

function stripTrailingComma(text: string): string {
  return text.replace(/,\s*$/, "");
}

function escapeControl(c: string): string {
  const code = c.charCodeAt(0);
  if (code >= 0x20) return c;
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  if (c === "\t") return "\\t";
  return `\\u${code.toString(16).padStart(4, "0")}`;
}
