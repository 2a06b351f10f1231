import type { Command } from "./commands.js";
import { resolveLong } from "./options.js";
import { findDeletes, findStartPaths, operands, optionValue } from "./targets.js";

/**
 * The files a simple command writes, creates, moves away or deletes: `>`/`>>` targets, `tee`,
 * the destination of `cp`/`mv`/`install`/`ln`/`rsync`/`scp` (and the sources `mv` takes away),
 * `dd of=`, in-place edits (`sed -i`, `perl -i`, `ruby -i`, `awk -i inplace`), editors, `truncate`,
 * deletes (`rm`, `shred`, `find -delete`) and the output options of downloaders and filters.
 */

const set = (s: string): ReadonlySet<string> => new Set(s.split(" "));

const COPY_VALUES = set("-t -S --suffix --target-directory -m --mode -o --owner -g --group");
export const RSYNC_VALUES = set(
  "-e --rsh -f --filter --exclude --include --files-from --exclude-from --include-from --backup-dir --partial-dir -T --temp-dir --log-file --password-file --chmod --chown -B --block-size --port --timeout --bwlimit",
);
export const SCP_VALUES = set("-i -P -o -F -c -l -J -S -D -X");
const VIM_VALUES = set("-c --cmd -S -u -U -i -T -w -W -t -q -r");
const EMACS_VALUES = set("--eval -l --load -f --funcall --insert -L --directory -t --chdir");
const AWK_VALUES = set(
  "-f -v -F -i -l -e -E --file --assign --field-separator --include --load --source --exec",
);
const PATCH_VALUES = set("-i -o -d -p -r -B -D -F -V -Y -z -g --input --output --directory --strip");
const SHRED_VALUES = set("-n -s --iterations --size --random-source");
const TRUNCATE_VALUES = set("-s -r --size --reference");
const XXD_VALUES = set("-c -g -l -o -s -n -C");

const SED_LONG = [
  "expression",
  "file",
  "in-place",
  "line-length",
  "quiet",
  "silent",
  "regexp-extended",
  "separate",
];
const EDITORS = /^(?:vi|vim|nvim|gvim|ex|ed|red|emacs|nano|pico|micro|joe|mcedit|kak|hx)$/;
const DELETERS = /^(?:rm|unlink|shred|rmdir|srm)$/;

const basename = (p: string): string => p.replace(/\/+$/, "").split("/").pop() ?? p;
/** `host:path`, `user@host:`, `rsync://...`: a copy's end on another machine. */
export const isRemote = (p: string): boolean => /^[^/]*:/.test(p) && !p.startsWith("/");

/** Destination and sources of a copy-like command; a destination folder also gets each source's name. */
function copied(c: Command, values: ReadonlySet<string>): string[] {
  const ops = operands(c.args, values);
  const dir = optionValue(c.args, "-t", "target-directory");
  if (c.name === "install" && (c.args.includes("-d") || c.args.includes("--directory"))) return ops;
  const sources = dir !== undefined ? ops : ops.slice(0, -1);
  const dest = dir ?? (ops.length >= 2 ? ops.at(-1)! : undefined);
  if (dest === undefined || isRemote(dest)) return [];
  const out = [dest, ...sources.filter((s) => !isRemote(s)).map((s) => `${dest}/${basename(s)}`)];
  if (c.name === "mv") out.push(...sources);
  return out;
}

/** Files `sed -i` edits (undefined without -i): every operand, less the script when no -e/-f gave it. */
function sedFiles(args: readonly string[]): string[] | undefined {
  let inPlace = false;
  let script = false;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      files.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const full = resolveLong(a.slice(2, eq < 0 ? undefined : eq), SED_LONG);
      if (full === "in-place") inPlace = true;
      if (full === "expression" || full === "file") script = true;
      if (eq < 0 && (full === "expression" || full === "file" || full === "line-length")) i += 1;
    } else if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const ch = a[j]!;
        if (ch === "i") {
          inPlace = true;
          break;
        }
        if (ch === "e" || ch === "f" || ch === "l") {
          if (ch !== "l") script = true;
          if (j === a.length - 1) i += 1;
          break;
        }
      }
    } else files.push(a);
  }
  if (!inPlace) return undefined;
  if (script) return files;
  // `sed -i PATH` alone: sed reads PATH as its script and fails, but the command was written to
  // edit PATH; judged as that edit, so it asks like one.
  if (files.length === 1 && /^(?:[/~$]|\.{1,2}\/)/.test(files[0]!)) return files;
  return files.slice(1);
}

/**
 * Files `perl -i` / `ruby -i` edits: operands, less the script file when no -e gave the code.
 * In a cluster, -i takes the rest as its backup suffix and -e the rest (or the next word) as code.
 */
function inPlaceScriptFiles(args: readonly string[], ruby: boolean): string[] | undefined {
  let inPlace = false;
  let code = false;
  const files: string[] = [];
  const nextValue = ruby ? "erICE" : "eE";
  const attachedValue = ruby ? "Fx0KTWl" : "MmIxF0lCd";
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      files.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) continue;
    if (!a.startsWith("-") || a === "-") {
      files.push(a);
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const ch = a[j]!;
      if (ch === "i") {
        inPlace = true;
        break;
      }
      if (nextValue.includes(ch)) {
        if (ch === "e" || (ch === "E" && !ruby)) code = true;
        if (j === a.length - 1) i += 1;
        break;
      }
      if (attachedValue.includes(ch)) break;
    }
  }
  if (!inPlace) return undefined;
  return code ? files : files.slice(1);
}

/** `awk -i inplace` / `gawk --include=inplace`: the data files after the program. */
function awkFiles(args: readonly string[]): string[] | undefined {
  const inplace =
    args.some((a, i) => (a === "-i" || a === "--include") && args[i + 1] === "inplace") ||
    args.some((a) => a === "-iinplace" || a === "--include=inplace");
  if (!inplace) return undefined;
  const ops = operands(args, AWK_VALUES);
  const program = args.some((a) => /^(?:-f|-e|-E|--file|--source|--exec)$/.test(a));
  return program ? ops : ops.slice(1);
}

/** Clustered short option whose value follows (`curl -sSLo FILE`, `wget -qO FILE`). */
function clusterValue(args: readonly string[], letter: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    if (/^-[a-zA-Z]+$/.test(a) && a.endsWith(letter)) return args[i + 1];
    if (a.startsWith(`-${letter}`) && a.length > 2 && !a.startsWith("--")) return a.slice(2);
  }
  return undefined;
}

const tarMode = (args: readonly string[]): string => {
  const first = args[0] ?? "";
  const cluster = first.startsWith("-") ? first.slice(1) : first;
  const longs = args.filter((a) => a.startsWith("--")).join(" ");
  if (/x/.test(cluster) || args.some((a) => /^-[a-zA-Z]*x/.test(a)) || /--(?:extract|get)\b/.test(longs))
    return "extract";
  if (/[cruA]/.test(cluster) || /--(?:create|append|update)\b/.test(longs)) return "create";
  return "";
};

function programWrites(c: Command): string[] {
  const a = c.args;
  switch (c.name) {
    case "tee":
    case "sponge":
      return operands(a);
    case "cp":
    case "mv":
    case "install":
    case "ln":
      return copied(c, COPY_VALUES);
    case "rsync":
      return copied(c, RSYNC_VALUES);
    case "scp":
      return copied(c, SCP_VALUES);
    case "dd":
      return a.filter((w) => w.startsWith("of=")).map((w) => w.slice(3));
    case "sed":
      return sedFiles(a) ?? [];
    case "perl":
    case "ruby":
      return inPlaceScriptFiles(a, c.name === "ruby") ?? [];
    case "awk":
    case "gawk":
      return awkFiles(a) ?? [];
    case "truncate":
      return operands(a, TRUNCATE_VALUES);
    case "patch": {
      const ops = operands(a, PATCH_VALUES);
      return [...ops.slice(0, 1), ...[optionValue(a, "-o", "output")].filter((x) => x !== undefined)];
    }
    case "curl":
      return [
        clusterValue(a, "o"),
        optionValue(a, undefined, "output"),
        optionValue(a, undefined, "output-dir"),
      ].filter((x): x is string => x !== undefined && x !== "-");
    case "wget":
      return [
        clusterValue(a, "O"),
        optionValue(a, undefined, "output-document"),
        optionValue(a, "-P", "directory-prefix"),
      ].filter((x): x is string => x !== undefined && x !== "-");
    case "tar":
    case "bsdtar": {
      const mode = tarMode(a);
      if (mode === "extract") return [optionValue(a, "-C", "directory")].filter((x) => x !== undefined);
      if (mode === "create") {
        // Old-style `tar czf OUT ...`: the first word is the option cluster, its values follow it.
        const oldStyle = a[0] !== undefined && !a[0].startsWith("-") && a[0].includes("f") ? a[1] : undefined;
        return [clusterValue(a, "f"), optionValue(a, undefined, "file"), oldStyle].filter(
          (x) => x !== undefined,
        );
      }
      return [];
    }
    case "unzip":
      return [optionValue(a, "-d")].filter((x) => x !== undefined);
    case "sort":
    case "iconv":
      return [optionValue(a, "-o", "output")].filter((x) => x !== undefined);
    case "openssl":
      return [optionValue(a, "-out")].filter((x) => x !== undefined);
    case "uniq":
      return operands(a).slice(1, 2);
    case "xxd":
      return operands(a, XXD_VALUES).slice(1, 2);
    case "find":
      return findDeletes(a) ? findStartPaths(a) : [];
  }
  if (DELETERS.test(c.name)) return operands(a, c.name === "shred" ? SHRED_VALUES : undefined);
  if (EDITORS.test(c.name)) {
    if (a.includes("-R") || a.includes("-M")) return [];
    const values = c.name === "emacs" ? EMACS_VALUES : VIM_VALUES;
    return operands(a, values).filter((w) => !w.startsWith("+"));
  }
  return [];
}

const cache = new WeakMap<Command, readonly string[]>();
const NONE: readonly string[] = [];
/** Programs `programWrites` knows to write files (the rest only write through redirections). */
const WRITERS =
  /^(?:tee|sponge|cp|mv|install|ln|rsync|scp|dd|sed|perl|ruby|awk|gawk|truncate|patch|curl|wget|tar|bsdtar|unzip|sort|iconv|openssl|uniq|xxd|find)$/;

/** Every path `c` changes (written, created, moved away or deleted), as written in the command. Never throws. */
export function modifiedPaths(c: Command): readonly string[] {
  if (c.redirects.length === 0 && !WRITERS.test(c.name) && !DELETERS.test(c.name) && !EDITORS.test(c.name))
    return NONE;
  const hit = cache.get(c);
  if (hit) return hit;
  const out = c.redirects.filter((r) => r.op === ">" || r.op === ">>").map((r) => r.target);
  try {
    out.push(...programWrites(c));
  } catch {
    // A malformed argument list changes nothing we can name.
  }
  const paths = out.filter((p) => p !== "" && p !== "-");
  cache.set(c, paths);
  return paths;
}

/**
 * Files `c` gives a second name (`ln -s ~/.bashrc x`, `ln target link`, `cp -s`/`cp -l`): a write
 * through that name later changes the original.
 */
export function linkedPaths(c: Command): string[] {
  const links =
    c.name === "ln" ||
    c.name === "link" ||
    (c.name === "cp" && c.args.some((a) => /^-[a-zA-Z]*[sl]/.test(a)));
  if (!links) return [];
  const ops = operands(c.args, COPY_VALUES);
  return optionValue(c.args, "-t", "target-directory") !== undefined || ops.length < 2
    ? ops
    : ops.slice(0, -1);
}
