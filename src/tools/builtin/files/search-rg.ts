import { spawn } from "node:child_process";
import { basename, dirname, resolve } from "node:path";
import type { ToolContext } from "../../context.js";
import { findExecutable, shQuote } from "../../environments/shell-state.js";
import { hasGlobSyntax } from "./glob.js";
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
 * ripgrep engine. Locally rg is spawned with an argv array (never a shell string) and its output
 * streamed, stopping early once enough is counted; on other backends the same argv is quoted and run
 * through the environment. `.gitignore` is respected, hidden files are searched, `.git` is skipped.
 */

const RG_TIMEOUT_MS = 60_000;

let rgPath: string | null | undefined;

/** Absolute path of `rg` on PATH, or null. Cached for the process. */
export function findRipgrep(): string | null {
  if (rgPath === undefined) rgPath = findExecutable("rg") ?? null;
  return rgPath;
}

function buildArgs(q: SearchQuery, target: string, pcre: boolean): { args: string[]; sep: string } {
  const args = ["--hidden", "--glob", "!.git", "--no-messages", "--color", "never"];
  if (q.fileGlob) args.push("--glob", q.fileGlob);
  if (q.target === "files") {
    const glob = hasGlobSyntax(q.pattern) ? q.pattern : `*${q.pattern}*`;
    // rg's --sortr modified orders siblings per directory, not globally: sorted after stat instead.
    args.push("--files", "--null", "--iglob", glob, "--", target);
    return { args, sep: "\0" };
  }
  if (pcre) args.push("--pcre2");
  if (q.mode === "content") {
    args.push("--json", "--sort", "path");
    if (q.context > 0) args.push("--context", String(q.context));
  } else if (q.mode === "files_with_matches") args.push("--files-with-matches", "--null", "--sort", "path");
  else args.push("--count", "--null", "--sort", "path");
  args.push("--regexp", q.pattern, "--", target);
  return { args, sep: q.mode === "files_with_matches" ? "\0" : "\n" };
}

interface RgRun {
  code: number | null;
  stderr: string;
}

/** Runs rg, feeding each record to `onRecord`; returning false from it stops rg early. */
async function runRg(
  ctx: ToolContext,
  q: SearchQuery,
  cwd: string,
  args: string[],
  sep: string,
  onRecord: (r: string) => boolean,
): Promise<RgRun> {
  if (ctx.env.backend !== "local") {
    const cmd = `cd ${shQuote(cwd)} && ${["rg", ...args].map(shQuote).join(" ")}`;
    const res = await ctx.env.run(cmd, { timeoutMs: RG_TIMEOUT_MS, signal: q.signal });
    for (const r of res.output.split(sep)) if (r && !onRecord(r)) break;
    return { code: res.exitCode, stderr: res.exitCode === 2 || res.exitCode === 127 ? res.output : "" };
  }
  return new Promise<RgRun>((resolve) => {
    const child = spawn(findRipgrep() ?? "rg", args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let buf = "";
    let stderr = "";
    let stopped = false;
    const stop = (): void => {
      stopped = true;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(stop, RG_TIMEOUT_MS);
    const onAbort = (): void => stop();
    q.signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (stopped) return;
      buf += chunk;
      let i = buf.indexOf(sep);
      while (i >= 0 && !stopped) {
        const record = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (record && !onRecord(record)) stop();
        i = buf.indexOf(sep);
      }
    });
    child.stderr.on("data", (c: Buffer) => {
      if (stderr.length < 4000) stderr += c.toString("utf8");
    });
    const done = (code: number | null): void => {
      clearTimeout(timer);
      q.signal.removeEventListener("abort", onAbort);
      if (!stopped && buf) onRecord(buf);
      resolve({ code: stopped ? 0 : code, stderr });
    };
    child.once("error", (err) => {
      stderr += err.message;
      done(127);
    });
    child.once("close", (code) => done(code));
  });
}

interface RgJson {
  type: string;
  data?: { path?: { text?: string }; lines?: { text?: string }; line_number?: number };
}

/**
 * Searches `q.root`. rg runs from the root directory (or a file's directory) so that globs with a
 * `/` are relative to the search root, as in the JS engine; `display` maps rg's paths for output.
 */
export async function searchWithRipgrep(
  ctx: ToolContext,
  q: SearchQuery,
  rootIsDir: boolean,
  display: (p: string) => string,
  pcre = false,
): Promise<EngineResult> {
  const cwd = rootIsDir ? q.root : dirname(q.root);
  const { args, sep } = buildArgs(q, rootIsDir ? "." : basename(q.root), pcre);
  const show = (p: string): string => display(resolve(cwd, p));
  const paths: string[] = [];
  const absPaths: string[] = [];
  const counts: { path: string; count: number }[] = [];
  const files: FileHits[] = [];
  let total = 0;
  let capped = false;
  let lastWantedLine = -1;

  const onRecord = (rec: string): boolean => {
    if (q.target === "files") {
      absPaths.push(resolve(cwd, rec.replace(/^\n/, "")));
      capped = absPaths.length >= MAX_PATHS;
      return !capped;
    }
    if (q.mode === "files_with_matches") {
      paths.push(show(rec.replace(/^\n/, "")));
      capped = paths.length >= MAX_PATHS;
      return !capped;
    }
    if (q.mode === "count") {
      const [p, n] = rec.split("\0");
      if (p !== undefined && n !== undefined) counts.push({ path: show(p), count: Number(n) });
      return true;
    }
    let msg: RgJson;
    try {
      msg = JSON.parse(rec) as RgJson;
    } catch {
      return true;
    }
    if (msg.type === "begin" && msg.data?.path?.text !== undefined) {
      files.push({ path: show(msg.data.path.text), hits: [] });
      lastWantedLine = -1;
      return true;
    }
    if (msg.type !== "match" && msg.type !== "context") return true;
    const file = files[files.length - 1];
    const line = msg.data?.line_number ?? 0;
    const isMatch = msg.type === "match";
    const keep = total < q.want || (lastWantedLine >= 0 && line <= lastWantedLine + q.context);
    if (isMatch) {
      if (total < q.want) lastWantedLine = line;
      total++;
    }
    if (file && keep) {
      const text = (msg.data?.lines?.text ?? "").replace(/\r?\n$/, "");
      file.hits.push({ line, text: cutText(text), match: isMatch });
    }
    if (total >= MAX_COUNTED_MATCHES) {
      capped = true;
      return false;
    }
    return true;
  };

  const run = await runRg(ctx, q, cwd, args, sep, onRecord);
  if (run.code === 127) {
    return {
      kind: "error",
      error: "ripgrep (rg) is not available on this backend; use terminal with grep -rn or find.",
    };
  }
  if (run.code === 2 && run.stderr) {
    const msg = run.stderr.trim();
    if (!pcre && /look-?around|backreference/i.test(msg))
      return searchWithRipgrep(ctx, q, rootIsDir, display, true);
    return { kind: "error", error: `Invalid search pattern /${q.pattern}/: ${msg.slice(0, 800)}` };
  }
  if (q.target === "files")
    return { kind: "paths", paths: await newestFirst(absPaths, (p) => ctx.env.stat(p), display), capped };
  if (q.mode === "files_with_matches") return { kind: "paths", paths, capped };
  if (q.mode === "count") return { kind: "counts", counts, capped };
  return { kind: "content", files: files.filter((f) => f.hits.length > 0), totalMatches: total, capped };
}
