/**
 * Repair of malformed tool-call arguments (seed 004 §14). Local models (Ollama, llama.cpp) emit
 * truncated or sloppy JSON; replaying such a string makes some providers answer HTTP 400 on every
 * later turn, so the agent stores the repaired object instead. JSON validity beats completeness.
 */

export interface RepairResult {
  /** The arguments object; `{}` when nothing usable could be recovered. */
  args: Record<string, unknown>;
  /** True when the raw text was not valid JSON as-is (or not an object) and had to be changed. */
  repaired: boolean;
  /** True when repair gave up and `args` is the empty fallback. */
  fallback: boolean;
}

/** Unmatched closers dropped before giving up: bounds the work on pathological input. */
const MAX_EXCESS_CLOSERS = 50;

/**
 * Parses tool-call arguments, repairing what local models typically get wrong: control characters
 * inside strings, trailing commas, unclosed strings/brackets/braces, excess closers, code fences,
 * Python literals and single quotes. Never throws.
 */
export function repairToolArguments(raw: string): RepairResult {
  if (typeof raw !== "string") return fromValue(raw, true);
  const text = raw.trim();
  if (text === "") return { args: {}, repaired: false, fallback: false };

  const strict = tryParse(text);
  if (strict.ok) return fromValue(strict.value, false);

  const body = stripWrapping(text);
  const scanned = scan(body);
  if (scanned) {
    const closed = tryParse(scanned.text);
    if (closed.ok) return fromValue(closed.value, true);
    // A truncated last member ("b": tru, or a dangling key) cannot be closed: drop it.
    if (scanned.cutText !== undefined) {
      const cut = tryParse(scanned.cutText);
      if (cut.ok) return fromValue(cut.value, true);
    }
  }
  return { args: {}, repaired: true, fallback: true };
}

function fromValue(value: unknown, repaired: boolean): RepairResult {
  if (isPlainObject(value)) return { args: value, repaired, fallback: false };
  // Some models double-encode: the arguments are a JSON string holding the object.
  if (typeof value === "string") {
    const inner = tryParse(value.trim());
    if (inner.ok && isPlainObject(inner.value)) return { args: inner.value, repaired: true, fallback: false };
  }
  return { args: {}, repaired: true, fallback: true };
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

interface ScanResult {
  /** Input with strings fixed, stray closers dropped and every open structure closed. */
  text: string;
  /** The same, cut back to before the last comma of an open structure, then closed. */
  cutText?: string;
}

const SIMPLE_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t", "u"]);
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const PY_LITERALS: Record<string, string> = { True: "true", False: "false", None: "null" };

/** One left-to-right pass that normalises the text into (hopefully) valid JSON. */
function scan(src: string): ScanResult | undefined {
  let out = "";
  const stack: string[] = [];
  let quote: '"' | "'" | undefined;
  let dropped = 0;
  let lastCut: { length: number; stack: string[] } | undefined;

  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (quote) {
      if (c === "\\") {
        const next = src[i + 1];
        if (next === undefined) break; // dangling backslash at the very end
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
    if (c === '"' || c === "'") {
      quote = c;
      out += '"';
    } else if (c === "{" || c === "[") {
      stack.push(c);
      out += c;
    } else if (c === "}" || c === "]") {
      const opener = c === "}" ? "{" : "[";
      if (!stack.includes(opener)) {
        if (++dropped > MAX_EXCESS_CLOSERS) return undefined;
        continue;
      }
      // Close whatever was left open inside this structure first: `{"a": [1, 2}`.
      while (stack.length > 0) {
        const top = stack.pop()!;
        out = stripTrailingComma(out) + (top === "{" ? "}" : "]");
        if (top === opener) break;
      }
    } else if (c === ",") {
      if (stack.length > 0) lastCut = { length: out.length, stack: [...stack] };
      out += c;
    } else if (/[A-Za-z_]/.test(c)) {
      WORD.lastIndex = i;
      const word = WORD.exec(src)![0];
      out += PY_LITERALS[word] ?? word;
      i += word.length - 1;
    } else {
      out += c;
    }
  }
  if (quote) out += '"';
  const text = closeAll(out, stack);
  const cutText = lastCut ? closeAll(out.slice(0, lastCut.length), lastCut.stack) : undefined;
  return cutText === undefined ? { text } : { text, cutText };
}

function closeAll(text: string, openStack: readonly string[]): string {
  let out = text;
  for (let i = openStack.length - 1; i >= 0; i--) {
    out = stripTrailingComma(out);
    if (/:\s*$/.test(out)) out += "null"; // `{"path":` → the key gets a null value
    out += openStack[i] === "{" ? "}" : "]";
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
