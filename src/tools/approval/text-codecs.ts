/**
 * The text transformations shell one-liners use to hide a command (escapes, printf, base64, xxd,
 * rev, tr, sed, gzip), done statically so the screening sees the text the shell would run.
 * Byte streams are "binary strings" (one char per byte, latin1); `undefined` means "cannot tell".
 */

/** Largest decoded text worth screening; beyond it the result counts as unknown. */
export const MAX_TEXT = 200_000;

export const toBinary = (text: string): string => Buffer.from(text, "utf8").toString("latin1");
export const fromBinary = (bytes: string): string => Buffer.from(bytes, "latin1").toString("utf8");

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/**
 * Backslash escapes as `$'...'`, `printf` formats (`octal0` false) and `printf %b` / `echo -e`
 * (`octal0` true: octal is `\0NNN`) read them. Returns the text and whether `\c` stopped output.
 */
export function unescapes(s: string, mode: "ansi" | "printf" | "echo"): { text: string; stop: boolean } {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== "\\" || i + 1 >= s.length) {
      out += c;
      continue;
    }
    const e = s[i + 1]!;
    i += 1;
    if (e === "c") {
      if (mode === "ansi") {
        const ctl = s[i + 1];
        if (ctl !== undefined) {
          out += String.fromCharCode(ctl.toUpperCase().charCodeAt(0) & 0x1f);
          i += 1;
        }
        continue;
      }
      return { text: out, stop: true };
    }
    if (e in SIMPLE_ESCAPES && !(mode !== "ansi" && (e === "'" || e === "?"))) {
      out += SIMPLE_ESCAPES[e];
      continue;
    }
    const hex = e === "x" ? /^[0-9a-fA-F]{1,2}/.exec(s.slice(i + 1)) : null;
    if (hex) {
      out += String.fromCharCode(Number.parseInt(hex[0], 16));
      i += hex[0].length;
      continue;
    }
    const uni =
      e === "u" || e === "U" ? new RegExp(`^[0-9a-fA-F]{1,${e === "u" ? 4 : 8}}`).exec(s.slice(i + 1)) : null;
    if (uni) {
      const cp = Number.parseInt(uni[0], 16);
      out += cp <= 0x10ffff ? String.fromCodePoint(cp) : "";
      i += uni[0].length;
      continue;
    }
    if (mode === "echo" && e === "0") {
      const oct = /^[0-7]{0,3}/.exec(s.slice(i + 1))![0];
      out += String.fromCharCode(Number.parseInt(oct || "0", 8) & 0xff);
      i += oct.length;
      continue;
    }
    const oct = mode === "echo" ? null : /^[0-7]{1,3}/.exec(s.slice(i));
    if (oct) {
      out += String.fromCharCode(Number.parseInt(oct[0], 8) & 0xff);
      i += oct[0].length - 1;
      continue;
    }
    out += `\\${e}`;
  }
  return { text: out, stop: false };
}

/** `printf FORMAT ARGS...`, the format reused while arguments remain. Undefined for formats it does not know. */
export function printf(format: string, args: readonly string[]): string | undefined {
  let out = "";
  let next = 0;
  const spec = /%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?([a-zA-Z%])/g;
  for (let round = 0; round < 1000; round++) {
    let last = 0;
    let consumed = false;
    for (const m of format.matchAll(spec)) {
      const lit = unescapes(format.slice(last, m.index), "printf");
      out += lit.text;
      if (lit.stop) return out;
      last = m.index + m[0].length;
      const conv = m[4]!;
      if (conv === "%") {
        out += "%";
        continue;
      }
      const take = (): string => {
        consumed = true;
        return args[next++] ?? "";
      };
      const width = m[2] === "*" ? Number.parseInt(take(), 10) || 0 : Number(m[2] ?? 0);
      const precision =
        m[3] === "*" ? Number.parseInt(take(), 10) : m[3] !== undefined ? Number(m[3]) : undefined;
      let piece: string;
      if (conv === "s") piece = take();
      else if (conv === "b") {
        const r = unescapes(take(), "echo");
        if (r.stop) return out + r.text;
        piece = r.text;
      } else if (conv === "c") piece = take().slice(0, 1);
      else if (conv === "q") piece = take();
      else if ("diouxX".includes(conv)) {
        const raw = take();
        const n = /^['"]./.test(raw) ? raw.codePointAt(1)! : Number(raw.trim() || "0");
        if (!Number.isFinite(n)) return undefined;
        const base = conv === "o" ? 8 : conv === "x" || conv === "X" ? 16 : 10;
        piece = Math.trunc(n).toString(base);
        if (conv === "X") piece = piece.toUpperCase();
      } else return undefined;
      if (precision !== undefined && (conv === "s" || conv === "b")) piece = piece.slice(0, precision);
      const pad = Math.max(0, width - piece.length);
      piece = m[1]?.includes("-") ? piece + " ".repeat(pad) : " ".repeat(pad) + piece;
      out += piece;
      if (out.length > MAX_TEXT) return undefined;
    }
    const tail = unescapes(format.slice(last), "printf");
    out += tail.text;
    if (tail.stop || !consumed || next >= args.length) return out;
  }
  return undefined;
}

/** base64 or base32 decoding of binary-string input; whitespace ignored. */
export function decodeBase(input: string, base: 32 | 64): string | undefined {
  const clean = input.replace(/\s+/g, "");
  if (base === 64) {
    if (!/^[A-Za-z0-9+/\-_]*={0,2}$/.test(clean)) return undefined;
    return Buffer.from(clean.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("latin1");
  }
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  let out = "";
  for (const ch of clean.replace(/=+$/, "").toUpperCase()) {
    const v = alphabet.indexOf(ch);
    if (v < 0) return undefined;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out += String.fromCharCode((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return out;
}

/** `xxd -r -p` (plain hex) or `xxd -r` (a hex dump with offsets). */
export function decodeHex(input: string, plain: boolean): string | undefined {
  const hex = plain
    ? input.replace(/\s+/g, "")
    : input
        .split("\n")
        .map((line) => /^\s*[0-9a-fA-F]+:\s*((?:[0-9a-fA-F]{2,4} ?)*)/.exec(line)?.[1] ?? "")
        .join("")
        .replace(/\s+/g, "");
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) return undefined;
  return Buffer.from(hex, "hex").toString("latin1");
}

/** gzip'd text; node:zlib (3 ms, 2 MB) loads on the first call, not with the screening. */
export function gunzip(input: string): string | undefined {
  try {
    const { gunzipSync } = process.getBuiltinModule("node:zlib");
    return gunzipSync(Buffer.from(input, "latin1"), { maxOutputLength: MAX_TEXT }).toString("latin1");
  } catch {
    return undefined;
  }
}

/** `rev`: each line's characters reversed. */
export const rev = (text: string): string =>
  text
    .split("\n")
    .map((line) => [...line].reverse().join(""))
    .join("\n");

/** `tac`: lines in reverse order. */
export function tac(text: string): string {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.length === 0 ? "" : `${lines.reverse().join("\n")}\n`;
}

const CLASSES: Record<string, string> = {
  lower: "abcdefghijklmnopqrstuvwxyz",
  upper: "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  digit: "0123456789",
  space: " \t\n\r\f\v",
  blank: " \t",
};
CLASSES.alpha = CLASSES.lower! + CLASSES.upper!;
CLASSES.alnum = CLASSES.alpha + CLASSES.digit!;
CLASSES.xdigit = `${CLASSES.digit}abcdefABCDEF`;

/** A `tr` set (ranges, escapes, [:class:]) as the list of its characters; undefined for repeats. */
function trSet(spec: string): string[] | undefined {
  const chars: string[] = [];
  const s = unescapes(spec, "printf").text;
  for (let i = 0; i < s.length; i++) {
    const cls = /^\[:([a-z]+):\]/.exec(s.slice(i));
    if (cls) {
      const members = CLASSES[cls[1]!];
      if (!members) return undefined;
      chars.push(...members);
      i += cls[0].length - 1;
      continue;
    }
    if (s[i] === "[" && /^\[.\*\d*\]/.test(s.slice(i))) return undefined;
    if (s[i + 1] === "-" && i + 2 < s.length) {
      const from = s.charCodeAt(i);
      const to = s.charCodeAt(i + 2);
      if (to < from || to - from > 1024) return undefined;
      for (let c = from; c <= to; c++) chars.push(String.fromCharCode(c));
      i += 2;
      continue;
    }
    chars.push(s[i]!);
  }
  return chars;
}

/** `tr [-d] [-s] SET1 [SET2]` on text. */
export function tr(text: string, args: readonly string[]): string | undefined {
  let del = false;
  let squeeze = false;
  const sets: string[] = [];
  for (const a of args) {
    if (/^-[ds]+$/.test(a) && sets.length === 0) {
      del ||= a.includes("d");
      squeeze ||= a.includes("s");
    } else if (a === "--" && sets.length === 0) continue;
    else if (a.startsWith("-") && a.length > 1 && sets.length === 0) return undefined;
    else sets.push(a);
  }
  if (sets.length === 0 || sets.length > 2) return undefined;
  const set1 = trSet(sets[0]!);
  const set2 = sets[1] !== undefined ? trSet(sets[1]) : [];
  if (!set1 || !set2) return undefined;
  let chars = [...text];
  if (del) {
    const gone = new Set(set1);
    chars = chars.filter((c) => !gone.has(c));
  } else if (set2.length > 0) {
    const map = new Map<string, string>();
    set1.forEach((c, i) => {
      map.set(c, set2[Math.min(i, set2.length - 1)]!);
    });
    chars = chars.map((c) => map.get(c) ?? c);
  } else if (!squeeze) return undefined;
  if (!squeeze) return chars.join("");
  const squeezed = new Set(del || set2.length > 0 ? set2 : set1);
  return chars.filter((c, i) => !(i > 0 && c === chars[i - 1] && squeezed.has(c))).join("");
}

const MAX_SED_TEXT = 16_384;

/** No quantified groups, back-references or long chains of quantifiers: matching stays fast. */
const tameRegex = (re: string): boolean =>
  !/\\?\)\\?[*+?{]|\\[1-9]/.test(re) && (re.match(/[*+]|\\\{/g)?.length ?? 0) <= 4;

/** A sed basic (or `-E` extended) regular expression as a JavaScript one. */
function sedRegex(pattern: string, extended: boolean): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\" && i + 1 < pattern.length) {
      const e = pattern[++i]!;
      out += !extended && "(){}|+?".includes(e) ? e : e === "n" ? "\\n" : e === "t" ? "\\t" : `\\${e}`;
    } else out += !extended && "(){}|+?".includes(c) ? `\\${c}` : c;
  }
  return out;
}

/** A sed replacement (`&`, `\1`, `\n`) as a JavaScript replacement string. */
function sedReplacement(to: string): string {
  let out = "";
  for (let i = 0; i < to.length; i++) {
    const c = to[i]!;
    if (c === "$") out += "$$";
    else if (c === "&") out += "$&";
    else if (c === "\\" && i + 1 < to.length) {
      const e = to[++i]!;
      out += /\d/.test(e) ? `$${e}` : e === "n" ? "\n" : e === "t" ? "\t" : e === "$" ? "$$" : e;
    } else out += c;
  }
  return out;
}

interface SedCommand {
  op: "s" | "y";
  from: string;
  to: string;
  flags: string;
}

/** Parses `s/a/b/g; y/ab/cd/` (any delimiter, escaped delimiters allowed); undefined for anything else. */
function sedCommands(script: string): SedCommand[] | undefined {
  const out: SedCommand[] = [];
  let i = 0;
  while (i < script.length) {
    while (i < script.length && /[\s;]/.test(script[i]!)) i++;
    if (i >= script.length) break;
    const op = script[i];
    const d = script[i + 1];
    if ((op !== "s" && op !== "y") || d === undefined || /[\\\n\s]/.test(d)) return undefined;
    i += 2;
    const parts: string[] = [];
    while (parts.length < 2) {
      let part = "";
      while (i < script.length && script[i] !== d) {
        if (script[i] === "\\" && script[i + 1] === d) {
          part += d;
          i += 2;
        } else if (script[i] === "\\" && i + 1 < script.length) {
          part += script.slice(i, i + 2);
          i += 2;
        } else part += script[i++];
      }
      if (i >= script.length) return undefined;
      parts.push(part);
      i++;
    }
    const flags = /^[a-zA-Z0-9]*/.exec(script.slice(i))![0];
    i += flags.length;
    out.push({ op, from: parts[0]!, to: parts[1]!, flags });
  }
  return out;
}

/** `sed` limited to `s/.../.../[gI]` and `y/.../.../` commands; anything else is unknown. */
export function sed(text: string, args: readonly string[]): string | undefined {
  let extended = false;
  const scripts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-E" || a === "-r" || a === "--regexp-extended") extended = true;
    else if (a === "-e" || a === "--expression") scripts.push(args[++i] ?? "");
    else if (a.startsWith("-") || scripts.length > 0) return undefined;
    else scripts.push(a);
  }
  const commands = sedCommands(scripts.join("\n"));
  if (!commands || commands.length === 0) return undefined;
  let out = text;
  for (const c of commands) {
    if (c.op === "y") {
      const from = [...c.from];
      const to = [...c.to];
      if (c.flags !== "" || from.length !== to.length) return undefined;
      out = [...out].map((ch) => (from.includes(ch) ? to[from.indexOf(ch)]! : ch)).join("");
      continue;
    }
    if (!/^[gI]*$/.test(c.flags) || !tameRegex(c.from) || text.length > MAX_SED_TEXT) return undefined;
    let re: RegExp;
    try {
      re = new RegExp(
        sedRegex(c.from, extended),
        `${c.flags.includes("g") ? "g" : ""}${c.flags.includes("I") ? "i" : ""}`,
      );
    } catch {
      return undefined;
    }
    const replacement = sedReplacement(c.to);
    out = out
      .split("\n")
      .map((line) => line.replace(re, replacement))
      .join("\n");
  }
  return out;
}
