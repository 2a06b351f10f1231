/** Shared shapes of the two search engines (ripgrep and the pure-JS fallback) and result rendering. */

export type OutputMode = "content" | "files_with_matches" | "count";

export interface SearchQuery {
  target: "content" | "files";
  /** Regex (content) or glob (files). */
  pattern: string;
  /** Absolute file or directory to search. */
  root: string;
  fileGlob?: string;
  mode: OutputMode;
  context: number;
  /** offset + limit: engines keep details for at least this many results. */
  want: number;
  signal: AbortSignal;
}

export interface LineHit {
  line: number;
  text: string;
  match: boolean;
}

export interface FileHits {
  path: string;
  hits: LineHit[];
}

export type EngineResult =
  | { kind: "content"; files: FileHits[]; totalMatches: number; capped: boolean }
  | { kind: "paths"; paths: string[]; capped: boolean }
  | { kind: "counts"; counts: { path: string; count: number }[]; capped: boolean }
  | { kind: "error"; error: string };

/** Stop counting content matches past this (the total is then a lower bound). */
export const MAX_COUNTED_MATCHES = 20_000;
/** Cap on file paths collected for files / files_with_matches / count results. */
export const MAX_PATHS = 50_000;
export const MAX_LINE_TEXT = 500;

export const cutText = (t: string): string =>
  t.length > MAX_LINE_TEXT ? `${t.slice(0, MAX_LINE_TEXT)} [... ${t.length - MAX_LINE_TEXT} more chars]` : t;

/** Display paths ordered by modification time, newest first (ties by path). */
export async function newestFirst(
  absPaths: string[],
  stat: (p: string) => Promise<{ mtimeMs: number } | undefined>,
  display: (p: string) => string,
): Promise<string[]> {
  const timed: { path: string; mtime: number }[] = [];
  for (let i = 0; i < absPaths.length; i += 256) {
    const chunk = absPaths.slice(i, i + 256);
    const stats = await Promise.all(chunk.map((p) => stat(p).catch(() => undefined)));
    chunk.forEach((p, k) => {
      timed.push({ path: display(p), mtime: stats[k]?.mtimeMs ?? 0 });
    });
  }
  timed.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return timed.map((t) => t.path);
}

/**
 * grep-style text for matches [offset, offset+limit): `path:line:text` for matches, `path-line-text`
 * for context lines, `--` between non-adjacent groups. Stops before `budget` characters; `shown`
 * says how many matches made it in.
 */
export function renderContent(
  files: FileHits[],
  offset: number,
  limit: number,
  context: number,
  budget: number,
): { text: string; shown: number } {
  const out: string[] = [];
  let chars = 0;
  let index = 0;
  let shown = 0;
  for (const file of files) {
    const selected: number[] = [];
    for (const h of file.hits) {
      if (!h.match) continue;
      if (index >= offset && index < offset + limit) selected.push(h.line);
      index++;
    }
    // Groups of hits: each selected match with its context, overlapping windows merged.
    const groups: { hits: LineHit[]; matches: number }[] = [];
    let lastEnd = -Infinity;
    for (const m of selected) {
      if (m - context > lastEnd + 1 || groups.length === 0) groups.push({ hits: [], matches: 0 });
      const g = groups[groups.length - 1]!;
      g.matches++;
      const lo = Math.max(m - context, lastEnd + 1);
      for (const h of file.hits) if (h.line >= lo && h.line <= m + context) g.hits.push(h);
      lastEnd = Math.max(lastEnd, m + context);
    }
    for (const g of groups) {
      const lines = g.hits.map((h) =>
        h.match ? `${file.path}:${h.line}:${h.text}` : `${file.path}-${h.line}-${h.text}`,
      );
      if (context > 0 && out.length > 0) lines.unshift("--");
      const size = lines.reduce((n, l) => n + l.length + 1, 0);
      if (shown > 0 && chars + size > budget) return { text: out.join("\n"), shown };
      out.push(...lines);
      chars += size;
      shown += g.matches;
    }
  }
  return { text: out.join("\n"), shown };
}
