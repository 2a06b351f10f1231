import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { guardPromptText } from "./injection.js";

/** Per-file cap of a context source in the system prompt. */
export const CONTEXT_FILE_MAX_CHARS = 20_000;

/** Keeps the head (70%) and tail (20%) of an oversized file with a marker between them. */
export function truncateContext(text: string, file: string, max = CONTEXT_FILE_MAX_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  const tail = Math.floor(max * 0.2);
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n\n[... ${cut} chars of ${file} truncated; read the file for the full text ...]\n\n${text.slice(text.length - tail)}`;
}

const readText = (path: string): string | undefined => {
  try {
    return statSync(path).isFile() ? readFileSync(path, "utf8") : undefined;
  } catch {
    return undefined;
  }
};

function firstExisting(dir: string, names: readonly string[]): string | undefined {
  for (const n of names) {
    const p = join(dir, n);
    if (existsSync(p) && readText(p) !== undefined) return p;
  }
  return undefined;
}

/** `.hermes.md` / `HERMES.md` in cwd or a parent, stopping at the git root (or the filesystem root). */
function findHermesMd(cwd: string): string | undefined {
  let dir = cwd;
  for (;;) {
    const hit = firstExisting(dir, [".hermes.md", "HERMES.md"]);
    if (hit) return hit;
    if (existsSync(join(dir, ".git"))) return undefined;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The one project context source in priority order (first found wins). */
export function findContextFiles(cwd: string): string[] {
  const hermes = findHermesMd(cwd);
  if (hermes) return [hermes];
  const agents = firstExisting(cwd, ["AGENTS.md", "agents.md"]);
  if (agents) return [agents];
  const claude = firstExisting(cwd, ["CLAUDE.md", "claude.md"]);
  if (claude) return [claude];
  const cursor = firstExisting(cwd, [".cursorrules"]);
  const rulesDir = join(cwd, ".cursor", "rules");
  let mdc: string[] = [];
  try {
    mdc = readdirSync(rulesDir)
      .filter((f) => f.endsWith(".mdc"))
      .sort()
      .map((f) => join(rulesDir, f));
  } catch {
    // no .cursor/rules
  }
  return [...(cursor ? [cursor] : []), ...mdc];
}

export interface ContextFileReport {
  file: string;
  chars: number;
  blocked: boolean;
  truncated: boolean;
}

/** The context-files layer: each file scanned, capped and labelled. "" when there are none. */
export function buildContextFilesLayer(cwd: string): { text: string; files: ContextFileReport[] } {
  const parts: string[] = [];
  const files: ContextFileReport[] = [];
  for (const path of findContextFiles(cwd)) {
    const raw = readText(path)?.trim();
    if (!raw) continue;
    const label = relative(cwd, path) || path;
    const guarded = guardPromptText(label, raw);
    const text = guarded.blocked ? guarded.text : truncateContext(raw, label);
    files.push({
      file: label,
      chars: text.length,
      blocked: guarded.blocked,
      truncated: text !== raw && !guarded.blocked,
    });
    parts.push(`## ${label}\n\n${text}`);
  }
  if (parts.length === 0) return { text: "", files };
  return {
    text: `# Project context\nThe following project files were loaded from the working directory. Follow their instructions where they apply.\n\n${parts.join("\n\n")}`,
    files,
  };
}
