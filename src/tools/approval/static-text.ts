import { type RawCommand, type RawScript, SUBSTITUTION } from "./shell-parse.js";
import {
  decodeBase,
  decodeHex,
  fromBinary,
  gunzip,
  MAX_TEXT,
  printf,
  rev,
  sed,
  tac,
  toBinary,
  tr,
  unescapes,
} from "./text-codecs.js";
import { basename } from "./wrappers.js";

/**
 * What a script prints, when that is known without running it: pipelines of echo, printf and
 * cat (with here-documents) through decoders and filters (base64 -d, xxd -r, rev, tr, sed,
 * gunzip...). Used for `$(...)` and for text piped into a shell. Undefined means "cannot tell".
 */

const ASSIGNMENT = /^[A-Za-z_]\w*(?:\[[^\]]*\])?\+?=/;

/** Words whose value is only known at run time. */
export const isComputed = (w: string): boolean => w.includes(SUBSTITUTION) || /\$(?:[\w@*#?$!{(-]|$)/.test(w);

const flagsOf = (args: readonly string[]): { flags: Set<string>; operands: string[] } => {
  const flags = new Set<string>();
  const operands: string[] = [];
  for (const a of args) {
    if (/^--[a-z-]+$/.test(a)) flags.add(a);
    else if (/^-[a-zA-Z0-9]+$/.test(a)) for (const f of a.slice(1)) flags.add(f);
    else operands.push(a);
  }
  return { flags, operands };
};

function echo(args: readonly string[]): string | undefined {
  let i = 0;
  let newline = true;
  let escapes = false;
  while (i < args.length && /^-[neE]+$/.test(args[i]!)) {
    for (const f of args[i]!.slice(1)) {
      if (f === "n") newline = false;
      else escapes = f === "e";
    }
    i++;
  }
  const text = args.slice(i).join(" ");
  // Shells disagree on backslashes in plain echo (dash expands them, bash does not).
  if (!escapes) return text.includes("\\") ? undefined : toBinary(text + (newline ? "\n" : ""));
  const r = unescapes(text, "echo");
  return toBinary(r.text + (newline && !r.stop ? "\n" : ""));
}

/** Output of one command given its stdin (binary; null when nothing is piped in). */
function run(words: readonly string[], input: string | null): string | undefined {
  let i = 0;
  while (i < words.length - 1 && /^(?:command|builtin)$/.test(words[i]!)) i++;
  const name = basename(words[i] ?? "");
  const args = words.slice(i + 1);
  const { flags, operands } = flagsOf(args);
  const text = input === null ? undefined : fromBinary(input);
  const fromText = (out: string | undefined): string | undefined =>
    out === undefined ? undefined : toBinary(out);
  switch (name) {
    case "echo":
      return echo(args);
    case "printf": {
      const rest = args[0] === "--" ? args.slice(1) : args;
      if (rest.length === 0 || rest[0] === "-v") return undefined;
      return fromText(printf(rest[0]!, rest.slice(1)));
    }
    case "cat":
      return operands.every((o) => o === "-") && flags.size === 0 ? (input ?? undefined) : undefined;
    case "base64":
    case "base32":
      if (
        input === null ||
        operands.length > 0 ||
        !(flags.has("d") || flags.has("D") || flags.has("--decode"))
      )
        return undefined;
      return decodeBase(input, name === "base64" ? 64 : 32);
    case "xxd":
      if (input === null || !flags.has("r") || operands.length > 0) return undefined;
      return decodeHex(input, flags.has("p") || flags.has("--plain") || args.includes("-ps"));
    case "openssl":
      if (input === null || !args.includes("-d") || !/^(?:base64|enc)$/.test(args[0] ?? "")) return undefined;
      if (args[0] === "enc" && !args.some((a) => a === "-base64" || a === "-a")) return undefined;
      if (args.some((a) => /^-(?:aes|des|bf|cast|rc|camellia|chacha|pass|k|K)/.test(a))) return undefined;
      return decodeBase(input, 64);
    case "gunzip":
    case "zcat":
      return input === null || operands.length > 0 ? undefined : gunzip(input);
    case "gzip":
      return input === null || operands.length > 0 || !flags.has("d") ? undefined : gunzip(input);
    case "rev":
      return text === undefined || operands.length > 0 ? undefined : fromText(rev(text));
    case "tac":
      return text === undefined || operands.length > 0 ? undefined : fromText(tac(text));
    case "tr":
      return text === undefined ? undefined : fromText(tr(text, args));
    case "sed":
      return text === undefined ? undefined : fromText(sed(text, args));
    default:
      return undefined;
  }
}

/** Output of a pipeline's stages in order; undefined when any stage's output cannot be known. */
export function pipeOutput(stages: readonly RawCommand[]): string | undefined {
  let input: string | null = null;
  for (const stage of stages) {
    if (stage.words.length === 0 || stage.words.some(isComputed) || stage.redirects.length > 0)
      return undefined;
    // A later stage's stdin may be this same piped text, already recorded by the walker.
    const own = stage.stdin.length > 0 ? toBinary(stage.stdin.map((s) => `${s}\n`).join("")) : null;
    const fed = input ?? own;
    const out = run(stage.words, fed);
    if (out === undefined || out.length > MAX_TEXT) return undefined;
    input = out;
  }
  return input ?? undefined;
}

/** What a `$(...)` body prints (as text), when every command in it is known; undefined otherwise. */
export function scriptOutput(script: RawScript): string | undefined {
  if (!script.simple) return undefined;
  let out = "";
  const done = new Set<readonly RawCommand[]>();
  for (const c of script.commands) {
    if (c.redirects.length === 0 && c.words.every((w) => ASSIGNMENT.test(w))) continue;
    if (c.pipe[c.stage] !== c) return undefined;
    if (done.has(c.pipe)) continue;
    done.add(c.pipe);
    const piece = pipeOutput(c.pipe);
    if (piece === undefined) return undefined;
    out += piece;
    if (out.length > MAX_TEXT) return undefined;
  }
  return fromBinary(out);
}
