import { closestRegion, showRegion } from "./fuzzy.js";
import type { Hunk } from "./patch-parse.js";

/**
 * Applies hunks to a file's LF text with context verification: each hunk's old side (context and
 * removed lines) must be found in the file, exactly or ignoring whitespace, nearest to where the
 * header says it should be. Context lines keep the file's own text.
 */

export type ApplyOutcome =
  | { ok: true; text: string; added: number; removed: number }
  | { ok: false; error: string };

const LEVELS: ((l: string) => string)[] = [(l) => l, (l) => l.trimEnd(), (l) => l.trim()];

function findBlock(
  lines: readonly string[],
  block: readonly string[],
  from: number,
  expected: number,
): number {
  for (const norm of LEVELS) {
    const want = block.map(norm);
    let best = -1;
    for (let p = 0; p + want.length <= lines.length; p++) {
      let ok = true;
      for (let k = 0; k < want.length; k++) {
        if (norm(lines[p + k]!) !== want[k]) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      // Prefer positions after the previous hunk, then the one closest to the header's line.
      const better =
        best < 0 ||
        (p >= from && best < from) ||
        (p >= from === best >= from && Math.abs(p - expected) < Math.abs(best - expected));
      if (better) best = p;
    }
    if (best >= 0) return best;
  }
  return -1;
}

export function applyHunks(text: string, hunks: readonly Hunk[]): ApplyOutcome {
  const lines = text === "" ? [] : text.split("\n");
  let finalEol = true;
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  else if (lines.length > 0) finalEol = false;

  let cursor = 0;
  let delta = 0;
  let added = 0;
  let removed = 0;
  for (const [n, hunk] of hunks.entries()) {
    const oldBlock = hunk.lines.filter((l) => l.kind !== "+").map((l) => l.text);
    let from = cursor;
    if (hunk.anchor) {
      const a = lines.findIndex((l, i) => i >= cursor && l.includes(hunk.anchor!));
      const anywhere = a >= 0 ? a : lines.findIndex((l) => l.includes(hunk.anchor!));
      if (anywhere >= 0) from = anywhere + 1;
    }
    const expected = hunk.oldStart !== undefined ? Math.max(0, hunk.oldStart - 1 + delta) : from;
    let at: number;
    if (oldBlock.length === 0) {
      // Pure insertion: `@@ -N,0` inserts after line N; without a line number, at the anchor or the end.
      at =
        hunk.oldStart !== undefined
          ? Math.min(lines.length, hunk.oldStart + delta)
          : hunk.anchor
            ? from
            : lines.length;
    } else {
      at = findBlock(lines, oldBlock, from, expected);
      if (at < 0) {
        const region = closestRegion(lines, oldBlock);
        const near =
          region && region.score > 0.3
            ? ` Most similar lines in the file (${region.start + 1}-${region.end}):\n${showRegion(lines, region.start, region.end)}`
            : "";
        const want = oldBlock.slice(0, 8).join("\n");
        return {
          ok: false,
          error: `hunk ${n + 1} (${hunk.header}) does not apply: its context/removed lines were not found. Expected:\n${want}${near}`,
        };
      }
    }
    const replacement: string[] = [];
    let k = at;
    for (const l of hunk.lines) {
      if (l.kind === " ") replacement.push(lines[k++] ?? l.text);
      else if (l.kind === "-") {
        k++;
        removed++;
      } else {
        replacement.push(l.text);
        added++;
      }
    }
    lines.splice(at, oldBlock.length, ...replacement);
    delta += replacement.length - oldBlock.length;
    cursor = at + replacement.length;
    if (hunk.noEolNew) finalEol = false;
    else if (hunk.noEolOld) finalEol = true;
  }
  const body = lines.join("\n");
  return { ok: true, text: lines.length > 0 && finalEol ? `${body}\n` : body, added, removed };
}
