import { basename, dirname, extname, join, sep } from "node:path";
import { homePaths } from "../../../core/home.js";
import type { ToolContext } from "../../context.js";
import type { ExecutionEnvironment } from "../../environments/types.js";
import { realpathOfNearest, scopeRefusal } from "./scope-guard.js";

/** Helpers shared by the file tools: binary detection, line endings, "did you mean", write guards. */

const BINARY_KINDS: Record<string, string> = {
  image: "png jpg jpeg gif bmp ico webp tif tiff psd heic avif icns",
  "PDF document": "pdf",
  "office document (zip)": "docx xlsx pptx odt ods odp doc xls ppt",
  archive: "zip gz tgz bz2 xz 7z rar zst tar lz4 jar war whl",
  "audio/video": "mp3 mp4 m4a wav flac ogg oga avi mov mkv webm wmv aac",
  "compiled binary": "exe dll so dylib o a lib obj class pyc pyo wasm bin node",
  font: "woff woff2 ttf otf eot",
  "database or data blob": "sqlite sqlite3 db parquet npy npz pkl pickle h5 onnx pt safetensors",
  "disk image or package": "iso dmg deb rpm img",
};
const BINARY_EXT = new Map<string, string>();
for (const [kind, exts] of Object.entries(BINARY_KINDS))
  for (const e of exts.split(" ")) BINARY_EXT.set(e, kind);

/** The kind of binary a file extension denotes, or undefined for (probably) text. */
export function binaryKindByExtension(path: string): string | undefined {
  return BINARY_EXT.get(extname(path).slice(1).toLowerCase());
}

/** NUL bytes in the first 8 KB mark a file as binary. */
export function looksBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8192).includes(0);
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function binaryError(path: string, size: number, kind: string): string {
  const hint =
    kind === "image"
      ? " Use vision_analyze to look at it."
      : kind === "PDF document"
        ? " Extract text with terminal (e.g. pdftotext FILE -)."
        : " Inspect it with terminal (e.g. file, xxd | head, unzip -l) if needed.";
  return `${path} is a binary file (${kind}, ${formatSize(size)}); read_file only reads text.${hint}`;
}

/** Decodes UTF-8 text, dropping a BOM. */
export function decodeText(buf: Buffer): string {
  const text = buf.toString("utf8");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The file's dominant line ending. */
export function detectEol(text: string): "\n" | "\r\n" {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const lf = (text.match(/\n/g)?.length ?? 0) - crlf;
  return crlf > lf ? "\r\n" : "\n";
}

/** Lines of `text` without terminators; a final newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > cap) return cap + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

const stem = (name: string): string => {
  const ext = extname(name);
  return (ext ? name.slice(0, -ext.length) : name).toLowerCase();
};

/** Up to `max` names from `candidates` that look like `wanted` (case, prefix, substring, typos). */
export function similarNames(wanted: string, candidates: readonly string[], max = 5): string[] {
  const w = wanted.toLowerCase();
  const ws = stem(wanted);
  const scored: { name: string; score: number }[] = [];
  for (const name of candidates) {
    const n = name.toLowerCase();
    const ns = stem(name);
    let score: number | undefined;
    if (n === w) score = 0;
    else if (ns === ws) score = 1;
    else if (ns.length > 1 && ws.length > 1 && (ns.startsWith(ws) || ws.startsWith(ns))) score = 2;
    else if (ws.length > 2 && n.includes(ws)) score = 3;
    else {
      const cap = Math.max(2, Math.floor(w.length / 3));
      const d = editDistance(w, n, cap);
      if (d <= cap) score = 3 + d;
    }
    // Within a tier, closer spellings first.
    if (score !== undefined) scored.push({ name, score: score + editDistance(w, n, 20) / 100 });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => s.name);
}

/** "File not found" with similar names from the same directory, for the model to retry with. */
export async function notFoundError(
  env: ExecutionEnvironment,
  rawPath: string,
  full: string,
): Promise<string> {
  const dir = dirname(full);
  const dirStat = await env.stat(dir).catch(() => undefined);
  if (!dirStat?.isDirectory) return `File not found: ${full} (directory ${dir} does not exist either).`;
  const names = await env.listDir(dir).catch(() => [] as string[]);
  const similar = similarNames(basename(full), names);
  if (similar.length === 0)
    return `File not found: ${full}. Use search_files with target "files" to locate it.`;
  const shownDir = dirname(rawPath);
  const shown = similar.map((n) => (shownDir === "." ? n : join(shownDir, n)));
  return `File not found: ${full}. Did you mean: ${shown.join(", ")}?`;
}

const foldCase = process.platform === "darwin" || process.platform === "win32";
const norm = (p: string): string => (foldCase ? p.toLowerCase() : p);
const within = (p: string, dir: string): boolean =>
  p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** Why writing `full` is refused (credentials, SSH keys, Hermes secrets), or undefined when allowed. */
function protectedReason(full: string, userHome: string, hermesHome: string): string | undefined {
  const p = norm(full);
  const dirs = [".ssh", ".gnupg", ".aws"].map((d) => join(userHome, d));
  for (const d of dirs) if (within(p, norm(d))) return `${d} holds credentials or keys`;
  const paths = homePaths(hermesHome);
  const files = [
    paths.env,
    paths.auth,
    join(userHome, ".netrc"),
    "/etc/passwd",
    "/etc/shadow",
    "/etc/sudoers",
  ];
  for (const f of files) if (p === norm(f)) return `${f} holds credentials or system authentication data`;
  if (within(p, "/etc/sudoers.d")) return "/etc/sudoers.d controls administrator rights";
  return undefined;
}

/**
 * Refuses writes to sensitive places, and for a chat user anything outside what is theirs
 * (`scopeRefusal`). On the local backend symlinks are resolved first (once), so a link in the
 * workspace cannot point a write at `~/.ssh/authorized_keys`.
 */
export async function checkWritable(ctx: ToolContext, full: string): Promise<string | undefined> {
  const real = ctx.env.backend === "local" ? await realpathOfNearest(full) : full;
  const scoped = await scopeRefusal(ctx, full, "write", real);
  if (scoped) return scoped;
  const userHome = ctx.env.resolvePath("~");
  let reason = protectedReason(full, userHome, ctx.home);
  if (!reason && real !== full) {
    reason = protectedReason(real, await realpathOfNearest(userHome), await realpathOfNearest(ctx.home));
  }
  return reason
    ? `Refusing to write ${full}: ${reason}. Ask the user to edit it themselves if it really must change.`
    : undefined;
}

/** `raw` is the text without a BOM; `bom` is put back on write. */
export type Loaded = { ok: true; full: string; raw: string; bom: string } | { ok: false; error: string };

/** Reads an existing text file for editing, or says why it cannot be edited. */
export async function loadForEdit(ctx: ToolContext, rawPath: string): Promise<Loaded> {
  const full = ctx.env.resolvePath(rawPath);
  const refused = await checkWritable(ctx, full);
  if (refused) return { ok: false, error: refused };
  const st = await ctx.env.stat(full);
  if (!st) return { ok: false, error: await notFoundError(ctx.env, rawPath, full) };
  if (st.isDirectory) return { ok: false, error: `${full} is a directory, not a file.` };
  const buf = await ctx.env.readFile(full);
  if (looksBinary(buf)) return { ok: false, error: `${full} is a binary file; patch edits text files only.` };
  const raw = decodeText(buf);
  return { ok: true, full, raw, bom: buf.toString("utf8", 0, 3) === "\uFEFF" ? "\uFEFF" : "" };
}

export const toLf = (s: string): string => s.replace(/\r\n/g, "\n");
