/**
 * Repair of malformed tool-call arguments (seed 004 §14). Local models (Ollama, llama.cpp) emit
 * sloppy JSON; replaying such a string makes some providers answer HTTP 400 on every later turn,
 * so the agent stores the repaired object instead. A repair may fix syntax around complete values
 * but never finishes a value that was cut off: `{"command": "git clone ht` must not run as
 * `git clone ht`, so such text comes back `truncated` and the call fails instead.
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
   * half-written literal or number), as when the reply hit the output token limit. Implies
   * `fallback`: the call must not run.
   */
  truncated: boolean;
}

/** Unmatched closers dropped before giving up: bounds the work on pathological input. */
const MAX_EXCESS_CLOSERS = 50;

const FAILED: RepairResult = { args: {}, repaired: true, fallback: true, truncated: false };
const TRUNCATED: RepairResult = { args: {}, repaired: true, fallback: true, truncated: true };

/**
 * Parses tool-call arguments, repairing what local models typically get wrong: control characters
 * inside strings, trailing commas, unclosed brackets/braces, excess closers, code fences, Python
 * literals, single-quoted or unquoted keys. Never throws.
 */
export function repairToolArguments(raw: string): RepairResult {
  if (typeof raw !== "string") return fromValue(raw, true);
  const text = raw.trim();
  if (text === "") return { args: {}, repaired: false, fallback: false, truncated: false };

  const strict = tryParse(text);
  if (strict.ok) return fromValue(strict.value, false);

  const scanned = scan(stripWrapping(text));
  if (scanned === CUT) return { ...TRUNCATED };
  if (scanned !== undefined) {
    const closed = tryParse(scanned);
    if (closed.ok) return fromValue(closed.value, true);
  }
  return { ...FAILED };
}

function fromValue(value: unknown, repaired: boolean): RepairResult {
  if (isPlainObject(value)) return { args: value, repaired, fallback: false, truncated: false };
  // Some models double-encode: the arguments are a JSON string holding the object.
  if (typeof value === "string") {
    const inner = repairToolArguments(value);
    if (inner.truncated) return { ...TRUNCATED };
    if (!inner.fallback && value.trim() !== "") return { ...inner, repaired: true };
  }
  return { ...FAILED };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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

/** An open structure and what it expects next; an object cut after a key or colon lost a value. */
interface Frame {
  kind: "{" | "[";
  expect: "key" | "colon" | "value" | "next";
}

const SIMPLE_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t", "u"]);
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /[-+.0-9eE]+/y;
const PY_LITERALS: Record<string, string> = { True: "true", False: "false", None: "null" };
const LITERALS = ["true", "false", "null", "True", "False", "None"];

/** What `scan` answers for text that stops inside a value. */
const CUT = Symbol("cut");

/**
 * One left-to-right pass that normalises the text into (hopefully) valid JSON with every open
 * structure closed; CUT when the text stops inside a value, undefined when it is hopeless.
 */
function scan(src: string): string | typeof CUT | undefined {
  let out = "";
  const stack: Frame[] = [];
  let quote: '"' | "'" | undefined;
  let dropped = 0;
  /** The last bare word or number, while nothing but whitespace has followed it. */
  let tail: { kind: "word" | "number"; text: string } | undefined;
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
    tail = undefined;
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
      const opener = c === "}" ? "{" : "[";
      if (!stack.some((f) => f.kind === opener)) {
        if (++dropped > MAX_EXCESS_CLOSERS) return undefined;
        continue;
      }
      // Close whatever was left open inside this structure first: `{"a": [1, 2}`.
      while (stack.length > 0) {
        const top = stack.pop()!;
        out = stripTrailingComma(out) + (top.kind === "{" ? "}" : "]");
        if (top.kind === opener) break;
      }
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
      tail = { kind: "word", text: word };
      out += PY_LITERALS[word] ?? word;
    } else if (/[-0-9]/.test(c)) {
      NUMBER.lastIndex = i;
      const num = NUMBER.exec(src)![0];
      startValue();
      tail = { kind: "number", text: num };
      out += num;
      i += num.length - 1;
    } else {
      out += c;
    }
  }
  if (quote || cutInsideValue(stack, tail)) return CUT;
  return closeAll(out, stack);
}

/** Whether open structures at the end of the text mean a value was cut off, not just its closers. */
function cutInsideValue(stack: readonly Frame[], tail: { kind: string; text: string } | undefined): boolean {
  const top = stack[stack.length - 1];
  if (!top) return false;
  if (top.kind === "{" && (top.expect === "colon" || top.expect === "value")) return true;
  if (tail?.kind === "word") return LITERALS.some((l) => l !== tail.text && l.startsWith(tail.text));
  if (tail?.kind === "number") return /[-+.eE]$/.test(tail.text);
  return false;
}

function closeAll(text: string, openStack: readonly Frame[]): string {
  let out = text;
  for (let i = openStack.length - 1; i >= 0; i--) {
    out = stripTrailingComma(out) + (openStack[i]!.kind === "{" ? "}" : "]");
  }
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
