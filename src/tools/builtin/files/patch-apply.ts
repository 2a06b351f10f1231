import { closestRegion, showRegion } from "./fuzzy.js";
import type { Hunk, HunkLine } from "./patch-parse.js";

/**
 * Applies hunks to a file's LF text with context verification: each hunk's old side (context and
 * removed lines) must be found in the file, nearest to where the header says it should be (line
 * numbers may be off by any amount). When it is not found exactly, whitespace differences are
 * tolerated, then up to two context lines at each end of the hunk may be dropped (GNU patch's
 * "fuzz"). Context lines keep the file's own text. Notes say which hunks needed tolerance.
 */

export type ApplyOutcome =
  | { ok: true; text: string; added: number; removed: number; notes: string[] }
  | { ok: false; error: string };

const LEVELS: readonly { name: string; norm: (l: string) => string }[] = [
  { name: "", norm: (l) => l },
  { name: "trailing whitespace", norm: (l) => l.trimEnd() },
  { name: "indentation", norm: (l) => l.trim() },
];
const MAX_FUZZ = 2;

function findBlock(
  lines: readonly string[],
  block: readonly string[],
  from: number,
  expected: number,
  norm: (l: string) => string,
): number {
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
  return best;
}

/** The hunk without up to `fuzz` context lines at each end (never dropping changed lines). */
function withFuzz(lines: readonly HunkLine[], fuzz: number): { core: HunkLine[]; leading: number } {
  let start = 0;
  let end = lines.length;
  while (start < fuzz && lines[start]?.kind === " ") start++;
  while (lines.length - end < fuzz && end > start && lines[end - 1]?.kind === " ") end--;
  return { core: lines.slice(start, end), leading: start };
}

/** Where the hunk's expected lines and the most similar file region first differ, for the error. */
function mismatch(lines: readonly string[], oldBlock: readonly string[]): string {
  const region = closestRegion(lines, oldBlock);
  if (!region || region.score <= 0.3)
    return " No similar lines were found in the file; re-read it with read_file.";
  for (let k = 0; k < oldBlock.length; k++) {
    const actual = lines[region.start + k];
    if (actual !== oldBlock[k]) {
      return (
        ` Closest match at line ${region.start + 1}; first difference at line ${region.start + k + 1}: ` +
        `the hunk expects ${JSON.stringify(oldBlock[k])} but the file has ${JSON.stringify(actual ?? "<end of file>")}.\n` +
        `File lines ${region.start + 1}-${region.end}:\n${showRegion(lines, region.start, region.end)}`
      );
    }
  }
  return "";
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
  const notes: string[] = [];
  for (const [n, hunk] of hunks.entries()) {
    let from = cursor;
    if (hunk.anchor) {
      const a = lines.findIndex((l, i) => i >= cursor && l.includes(hunk.anchor!));
      const anywhere = a >= 0 ? a : lines.findIndex((l) => l.includes(hunk.anchor!));
      if (anywhere >= 0) from = anywhere + 1;
    }
    const fullOld = hunk.lines.filter((l) => l.kind !== "+").map((l) => l.text);
    let body: HunkLine[] = hunk.lines;
    let at: number;
    if (fullOld.length === 0) {
      // Pure insertion: `@@ -N,0` inserts after line N; without a line number, at the anchor or the end.
      at =
        hunk.oldStart !== undefined
          ? Math.min(lines.length, hunk.oldStart + delta)
          : hunk.anchor
            ? from
            : lines.length;
    } else {
      at = -1;
      search: for (let fuzz = 0; fuzz <= MAX_FUZZ; fuzz++) {
        const { core, leading } = withFuzz(hunk.lines, fuzz);
        const oldBlock = core.filter((l) => l.kind !== "+").map((l) => l.text);
        if (oldBlock.length === 0 || (fuzz > 0 && core.length === hunk.lines.length)) continue;
        const expected =
          hunk.oldStart !== undefined ? Math.max(0, hunk.oldStart - 1 + delta + leading) : from;
        for (const level of LEVELS) {
          const p = findBlock(lines, oldBlock, from, expected, level.norm);
          if (p < 0) continue;
          at = p;
          body = core;
          const how = [
            level.name && `ignoring ${level.name}`,
            fuzz > 0 && `with ${fuzz} context line(s) of fuzz`,
          ]
            .filter(Boolean)
            .join(", ");
          if (how) notes.push(`hunk ${n + 1} applied ${how}`);
          break search;
        }
      }
      if (at < 0) {
        return {
          ok: false,
          error: `hunk ${n + 1} (${hunk.header}) does not apply: its context/removed lines were not found.${mismatch(lines, fullOld)}`,
        };
      }
    }
    const oldCount = body.filter((l) => l.kind !== "+").length;
    const replacement: string[] = [];
    let k = at;
    for (const l of body) {
      if (l.kind === " ") replacement.push(lines[k++] ?? l.text);
      else if (l.kind === "-") {
        k++;
        removed++;
      } else {
        replacement.push(l.text);
        added++;
      }
    }
    lines.splice(at, oldCount, ...replacement);
    delta += replacement.length - oldCount;
    cursor = at + replacement.length;
    if (hunk.noEolNew) finalEol = false;
    else if (hunk.noEolOld) finalEol = true;
  }
  const out = lines.join("\n");
  return { ok: true, text: lines.length > 0 && finalEol ? `${out}\n` : out, added, removed, notes };
}
