/**
 * Whitespace-tolerant line matching for edits, and "closest region" hints when nothing matches.
 * Lines here are LF-split without terminators.
 */

/** Start indices of non-overlapping windows of `lines` equal to `needle` under `norm`. */
export function findLineMatches(
  lines: readonly string[],
  needle: readonly string[],
  norm: (l: string) => string,
): number[] {
  const want = needle.map(norm);
  if (want.length === 0 || want.every((l) => l === "")) return [];
  const have = lines.map(norm);
  return findLineWindows(have.length, want.length, (i, k) => have[i] === want[k]);
}

/**
 * Start indices of non-overlapping windows of `size` lines out of `count` where `same(line, k)`
 * holds for every k of the window.
 */
export function findLineWindows(
  count: number,
  size: number,
  same: (line: number, k: number) => boolean,
): number[] {
  const starts: number[] = [];
  if (size === 0) return starts;
  for (let i = 0; i + size <= count; ) {
    let ok = true;
    for (let k = 0; k < size; k++) {
      if (!same(i + k, k)) {
        ok = false;
        break;
      }
    }
    if (ok) {
      starts.push(i);
      i += size;
    } else i++;
  }
  return starts;
}

const indentOf = (l: string): string => /^[ \t]*/.exec(l)![0];

/**
 * Moves `replacement` to the indentation the file actually uses: the indent of the first non-blank
 * line of `oldLines` becomes that of the matched file line, keeping relative indentation.
 */
export function reindent(
  replacement: string,
  oldLines: readonly string[],
  fileLines: readonly string[],
): string {
  const k = oldLines.findIndex((l) => l.trim() !== "");
  if (k < 0) return replacement;
  const from = indentOf(oldLines[k]!);
  const to = indentOf(fileLines[k] ?? "");
  if (from === to) return replacement;
  return replacement
    .split("\n")
    .map((l) => {
      if (l.trim() === "") return l;
      if (l.startsWith(from)) return to + l.slice(from.length);
      return l;
    })
    .join("\n");
}

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

function dice(a: Map<string, number>, alen: number, b: Map<string, number>, blen: number): number {
  if (alen < 2 && blen < 2) return alen === blen ? 1 : 0;
  let common = 0;
  for (const [g, n] of a) common += Math.min(n, b.get(g) ?? 0);
  return (2 * common) / Math.max(1, alen - 1 + (blen - 1));
}

const MAX_COMPARISONS = 400_000;

/** The window of the file most similar to `needle` (line-wise bigram similarity), 0-based. */
export function closestRegion(
  lines: readonly string[],
  needle: readonly string[],
): { start: number; end: number; score: number } | undefined {
  const want = needle.map((l) => l.trim());
  if (lines.length === 0 || want.every((l) => l === "")) return undefined;
  const n = Math.min(want.length, lines.length);
  const wantGrams = want.map(bigrams);
  const have = lines.map((l) => l.trim());
  const haveGrams = have.map(bigrams);
  const sim = (i: number, k: number): number =>
    dice(haveGrams[i]!, have[i]!.length, wantGrams[k]!, want[k]!.length);
  // Anchor on the first non-blank needle line when comparing every window would be too slow.
  const anchorOnly = lines.length * n > MAX_COMPARISONS;
  const anchor = Math.max(
    0,
    want.findIndex((l) => l !== ""),
  );
  let best = { start: 0, end: n, score: -1 };
  for (let i = 0; i + n <= lines.length; i++) {
    let score = 0;
    if (anchorOnly) score = sim(i + Math.min(anchor, n - 1), Math.min(anchor, n - 1));
    else {
      for (let k = 0; k < n; k++) score += sim(i + k, k);
      score /= n;
    }
    if (score > best.score) best = { start: i, end: i + n, score };
  }
  return best;
}

/** `N|text` lines of a region, long lines shortened, for error messages. */
export function showRegion(lines: readonly string[], start: number, end: number): string {
  const out: string[] = [];
  for (let i = Math.max(0, start); i < Math.min(lines.length, end); i++) {
    const l = lines[i]!;
    out.push(`${i + 1}|${l.length > 200 ? `${l.slice(0, 200)}...` : l}`);
  }
  return out.join("\n");
}
