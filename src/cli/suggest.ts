/** "Did you mean ...?" for a mistyped command name. */

/** Edit distance counting a swap of two neighbouring letters as one edit (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...Array<number>(b.length).fill(0),
  ]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidates closest to `word` (at most two edits, and not more edits than a third of the
 * longer word's letters plus one), best first; empty when nothing is close.
 */
export function similarNames(word: string, candidates: readonly string[]): string[] {
  const w = word.toLowerCase();
  let best = Number.POSITIVE_INFINITY;
  let found: string[] = [];
  for (const candidate of new Set(candidates)) {
    const distance = editDistance(w, candidate.toLowerCase());
    const allowed = Math.min(2, Math.floor(Math.max(w.length, candidate.length) / 3) + 1);
    if (distance > allowed) continue;
    if (distance < best) {
      best = distance;
      found = [candidate];
    } else if (distance === best) found.push(candidate);
  }
  return found.sort();
}
