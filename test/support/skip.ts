const told = new Set<string>();

/**
 * For `describe.skipIf` / `it.skipIf`: true when `reason` is given, and then the reason is printed
 * once on stderr ("skipped: <what>: <reason>"), so no skipped test goes unexplained.
 */
export function skipBecause(what: string, reason: string | false | undefined): boolean {
  if (!reason) return false;
  if (!told.has(what)) {
    told.add(what);
    process.stderr.write(`skipped: ${what}: ${reason}\n`);
  }
  return true;
}
