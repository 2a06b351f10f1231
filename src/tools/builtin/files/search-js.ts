import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join, relative, sep } from "node:path";
import { looksBinary } from "./common.js";
import { globMatcher, hasGlobSyntax } from "./glob.js";
import {
  cutText,
  type EngineResult,
  type FileHits,
  MAX_COUNTED_MATCHES,
  MAX_PATHS,
  newestFirst,
  type SearchQuery,
} from "./search-types.js";

/**
 * Pure-JS search for machines without ripgrep (local backend only). Walks the tree skipping `.git`
 * and `node_modules`, skips binary and very large files, and caps the number of files scanned.
 */

const SKIP_DIRS = new Set([".git", "node_modules"]);
const MAX_FILES_SCANNED = 20_000;
const MAX_FILE_BYTES = 5 * 1024 * 1024;

/** Compiles a search regex; `(?i)` at the start (ripgrep syntax) becomes the `i` flag. */
export function compileRegex(pattern: string): RegExp | string {
  let source = pattern;
  let flags = "";
  if (source.startsWith("(?i)")) {
    source = source.slice(4);
    flags = "i";
  }
  try {
    return new RegExp(source, flags);
  } catch (err) {
    return (err as Error).message;
  }
}

interface Walked {
  abs: string;
  /** `/`-separated, relative to the search root. */
  rel: string;
}

async function walk(
  root: string,
  signal: AbortSignal,
  state: { scanned: number; capped: boolean },
): Promise<Walked[]> {
  const rootStat = await stat(root);
  if (rootStat.isFile()) return [{ abs: root, rel: basename(root) }];
  const files: Walked[] = [];
  const stack = [root];
  while (stack.length > 0) {
    if (signal.aborted) break;
    const dir = stack.pop()!;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    for (const e of entries) {
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) stack.push(abs);
        continue;
      }
      if (!e.isFile() && !e.isSymbolicLink()) continue;
      if (e.isSymbolicLink()) {
        const s = await stat(abs).catch(() => undefined);
        if (!s?.isFile()) continue;
      }
      if (state.scanned >= MAX_FILES_SCANNED) {
        state.capped = true;
        return files;
      }
      state.scanned++;
      files.push({ abs, rel: relative(root, abs).split(sep).join("/") });
    }
  }
  return files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

export async function searchWithJs(q: SearchQuery, display: (abs: string) => string): Promise<EngineResult> {
  const state = { scanned: 0, capped: false };
  const globFilter = q.fileGlob ? globMatcher(q.fileGlob) : undefined;
  let files: Walked[];
  try {
    files = await walk(q.root, q.signal, state);
  } catch (err) {
    return { kind: "error", error: `Cannot search ${q.root}: ${(err as Error).message}` };
  }
  if (globFilter) files = files.filter((f) => globFilter(f.rel));

  if (q.target === "files") {
    const namePattern = hasGlobSyntax(q.pattern) ? q.pattern : `*${q.pattern}*`;
    const match = globMatcher(namePattern, true);
    const hits = files.filter((f) => match(f.rel)).slice(0, MAX_PATHS);
    const paths = await newestFirst(
      hits.map((f) => f.abs),
      (p) => stat(p),
      display,
    );
    return { kind: "paths", paths, capped: state.capped };
  }

  const re = compileRegex(q.pattern);
  if (typeof re === "string") return { kind: "error", error: `Invalid regex /${q.pattern}/: ${re}` };
  const out: FileHits[] = [];
  const counts: { path: string; count: number }[] = [];
  let total = 0;
  let capped = state.capped;
  for (const f of files) {
    if (q.signal.aborted || total >= MAX_COUNTED_MATCHES) {
      capped = true;
      break;
    }
    const size = (await stat(f.abs).catch(() => undefined))?.size ?? 0;
    if (size > MAX_FILE_BYTES) continue;
    const buf = await readFile(f.abs).catch(() => undefined);
    if (!buf || looksBinary(buf)) continue;
    const lines = buf.toString("utf8").split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    const matched: number[] = [];
    lines.forEach((l, i) => {
      if (re.test(l.endsWith("\r") ? l.slice(0, -1) : l)) matched.push(i);
    });
    if (matched.length === 0) continue;
    const path = display(f.abs);
    if (q.mode === "count") counts.push({ path, count: matched.length });
    else if (q.mode === "files_with_matches") counts.push({ path, count: 0 });
    else {
      // Keep line text only for matches that can still be shown.
      const keep = matched.filter((_, k) => total + k < q.want);
      if (keep.length > 0) {
        const wanted = new Set<number>();
        for (const m of keep)
          for (let i = m - q.context; i <= m + q.context; i++) if (i >= 0 && i < lines.length) wanted.add(i);
        const matchSet = new Set(matched);
        const hits = [...wanted]
          .sort((a, b) => a - b)
          .map((i) => ({ line: i + 1, text: cutText(lines[i]!.replace(/\r$/, "")), match: matchSet.has(i) }));
        out.push({ path, hits });
      }
    }
    total += matched.length;
  }
  if (q.mode === "count") return { kind: "counts", counts, capped };
  if (q.mode === "files_with_matches") return { kind: "paths", paths: counts.map((c) => c.path), capped };
  return { kind: "content", files: out, totalMatches: total, capped };
}
