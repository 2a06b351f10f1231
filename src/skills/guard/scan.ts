import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { MAX_LINKED_FILE_BYTES, MAX_SKILL_MD_CHARS, SKILL_FILE } from "../paths.js";
import { scanText } from "./scan-text.js";
import { clip } from "./text.js";
import type { Finding, FindingSeverity, ScanOptions, ScanResult, Verdict } from "./types.js";

/**
 * The scan of a skill folder: its shape (links, binaries, sizes) and the text of every file.
 * Reads only; never follows a symbolic link; never throws for what it finds in the folder.
 */

/** Past this, a file's content is not read (it is reported instead). */
const MAX_READ_BYTES = 4 * 1024 * 1024;
const MAX_FILES = 500;
const MAX_TOTAL_BYTES = 32 * 1024 * 1024;
/** Folders that never belong to a skill's content (version control of the source). */
const SKIPPED_DIRS = new Set([".git", ".hg", ".svn"]);

const EXECUTABLE_EXT =
  /\.(?:exe|dll|so|dylib|bin|msi|deb|rpm|apk|app|com|scr|jar|class|pyc|pyo|o|a|ko|wasm)$/i;
const ARCHIVE_EXT = /\.(?:zip|tar|tgz|gz|bz2|xz|7z|rar|zst)$/i;
const SCRIPT_EXT = /\.(?:sh|bash|zsh|ksh|py|rb|pl|js|mjs|cjs|ts|php|lua|r|jl|ps1|command)$/i;

const NATIVE_MAGIC: readonly number[][] = [
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0x4d, 0x5a], // PE (MZ)
  [0xfe, 0xed, 0xfa, 0xce],
  [0xfe, 0xed, 0xfa, 0xcf],
  [0xce, 0xfa, 0xed, 0xfe],
  [0xcf, 0xfa, 0xed, 0xfe], // Mach-O
  [0xca, 0xfe, 0xba, 0xbe], // Mach-O universal, Java class
  [0x00, 0x61, 0x73, 0x6d], // WebAssembly
];

const startsWith = (head: Buffer, magic: readonly number[]): boolean =>
  head.length >= magic.length && magic.every((b, i) => head[i] === b);

function readHead(path: string, bytes: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/**
 * The file as text: UTF-16 when it starts with its byte-order mark, else UTF-8 unless it has NUL
 * bytes (bytes that are not UTF-8 are still read: the rules match their ASCII).
 */
function asText(buf: Buffer): string | undefined {
  if (buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2).toString("utf16le");
  if (buf[0] === 0xfe && buf[1] === 0xff)
    return Buffer.from(buf.subarray(2, 2 + ((buf.length - 2) & ~1)))
      .swap16()
      .toString("utf16le");
  return buf.includes(0) ? undefined : buf.toString("utf8");
}

interface Walk {
  root: string;
  findings: Finding[];
  files: number;
  bytes: number;
  scanned: number;
  options: ScanOptions;
}

const structural = (
  w: Walk,
  rule: string,
  severity: FindingSeverity,
  file: string,
  match: string,
  description: string,
): void => {
  w.findings.push({ rule, severity, category: "structure", file, line: 0, match, description });
};

function visitLink(w: Walk, path: string, rel: string): void {
  let target = "";
  try {
    target = readlinkSync(path);
  } catch {
    // Unreadable link: reported as escaping, the careful reading.
  }
  const resolved = resolve(dirname(path), target);
  const inside = target !== "" && !isAbsolute(target) && !relative(w.root, resolved).startsWith("..");
  if (inside) structural(w, "symlink", "medium", rel, `-> ${target}`, "a symbolic link inside the skill");
  else
    structural(
      w,
      "symlink_escape",
      "critical",
      rel,
      `-> ${clip(target, 80)}`,
      "a symbolic link that points outside the skill (installing it would expose or overwrite other files)",
    );
}

function visitFile(w: Walk, path: string, rel: string, size: number, mode: number): void {
  w.files++;
  w.bytes += size;
  const head = readHead(path, 4096);
  if (NATIVE_MAGIC.some((m) => startsWith(head, m)) || EXECUTABLE_EXT.test(rel)) {
    structural(
      w,
      "binary_executable",
      "critical",
      rel,
      `${size} bytes`,
      "a compiled program (cannot be reviewed)",
    );
    return;
  }
  if (ARCHIVE_EXT.test(rel)) {
    structural(
      w,
      "nested_archive",
      "high",
      rel,
      `${size} bytes`,
      "an archive inside the skill (its content is not scanned)",
    );
    return;
  }
  if (size > MAX_LINKED_FILE_BYTES && basename(rel) !== SKILL_FILE) {
    structural(
      w,
      "oversized_file",
      "high",
      rel,
      `${size} bytes`,
      `larger than ${MAX_LINKED_FILE_BYTES} bytes, the limit of a skill's file`,
    );
    if (size > MAX_READ_BYTES) return;
  }
  const text = asText(size <= head.length ? head : readFileSync(path));
  if (text === undefined) return;
  if (basename(rel) === SKILL_FILE && text.length > MAX_SKILL_MD_CHARS)
    structural(
      w,
      "oversized_file",
      "high",
      rel,
      `${text.length} characters`,
      `SKILL.md over ${MAX_SKILL_MD_CHARS} characters`,
    );
  if (mode & 0o111 && !SCRIPT_EXT.test(rel) && !text.startsWith("#!"))
    structural(
      w,
      "unexpected_executable",
      "medium",
      rel,
      "executable bit",
      "marked executable but not a script",
    );
  w.scanned++;
  w.findings.push(...scanText(rel, text, w.options));
}

function walk(w: Walk, dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of entries) {
    const path = join(dir, name);
    const rel = relative(w.root, path).split(sep).join("/");
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) visitLink(w, path, rel);
    else if (st.isDirectory()) {
      if (!SKIPPED_DIRS.has(name)) walk(w, path);
    } else if (st.isFile()) {
      if (w.files >= MAX_FILES) continue;
      visitFile(w, path, rel, st.size, st.mode);
    } else structural(w, "special_file", "high", rel, "device, socket or pipe", "not a regular file");
  }
}

const SEVERITY_ORDER: Record<FindingSeverity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/** critical → dangerous, high → caution; medium and low alone leave a skill safe. */
export function verdictOf(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.severity === "critical")) return "dangerous";
  if (findings.some((f) => f.severity === "high")) return "caution";
  return "safe";
}

function finish(name: string, findings: Finding[], filesScanned: number): ScanResult {
  findings.sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      a.file.localeCompare(b.file) ||
      a.line - b.line,
  );
  return { name, verdict: verdictOf(findings), findings, filesScanned };
}

/** Scans a skill folder (or a single SKILL.md file). Never throws. */
export function scanSkillDir(dir: string, options: ScanOptions = {}): ScanResult {
  const root = resolve(dir);
  const w: Walk = { root, findings: [], files: 0, bytes: 0, scanned: 0, options };
  let st: ReturnType<typeof lstatSync> | undefined;
  try {
    st = lstatSync(root);
  } catch {
    st = undefined;
  }
  if (st?.isFile()) {
    const text = readFileSync(root, "utf8");
    return finish(basename(dirname(root)), scanText(basename(root), text, options), 1);
  }
  walk(w, root);
  if (w.files >= MAX_FILES)
    structural(
      w,
      "too_many_files",
      "medium",
      "(folder)",
      `${w.files}+ files`,
      `more than ${MAX_FILES} files; the rest were not scanned`,
    );
  if (w.bytes > MAX_TOTAL_BYTES)
    structural(w, "oversized_skill", "medium", "(folder)", `${w.bytes} bytes`, "a very large skill");
  return finish(basename(root), w.findings, w.scanned);
}

/** Scans the text of a SKILL.md before it is written (a skill the agent is about to create). */
export function scanSkillText(text: string, options: ScanOptions = {}): ScanResult {
  return finish("SKILL.md", scanText(SKILL_FILE, text, options), 1);
}
