/**
 * Parses multi-file patches: standard unified diffs (`--- a/x`, `+++ b/x`, `@@ -1,3 +1,4 @@`,
 * `/dev/null` for added and deleted files, git headers tolerated) and the "*** Begin Patch" (V4A)
 * format some models prefer. Both become the same `FilePatch` list.
 */

export interface HunkLine {
  kind: " " | "-" | "+";
  text: string;
}

export interface Hunk {
  header: string;
  /** 1-based first old line from `@@ -N`, when the header had one. */
  oldStart?: number;
  /** V4A `@@ some line`: the hunk comes after the first line containing this. */
  anchor?: string;
  lines: HunkLine[];
  /** `\ No newline at end of file` after the old / new side's last line. */
  noEolOld: boolean;
  noEolNew: boolean;
}

export interface FilePatch {
  kind: "add" | "delete" | "modify";
  path: string;
  /** Rename target (unified diff with different old/new names, or V4A `*** Move to:`). */
  moveTo?: string;
  hunks: Hunk[];
}

export type ParseOutcome = { ok: true; files: FilePatch[] } | { ok: false; error: string };

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Path from a `---`/`+++` header: timestamp and a/ b/ prefix removed; null for /dev/null. */
function headerPath(rest: string): string | null {
  let p = rest.split("\t")[0]!.trim();
  if (p.startsWith('"') && p.endsWith('"')) p = p.slice(1, -1).replace(/\\(.)/g, "$1");
  if (p === "/dev/null") return null;
  return p.replace(/^[ab]\//, "");
}

function newHunk(header: string, extra: Partial<Hunk> = {}): Hunk {
  return { header, lines: [], noEolOld: false, noEolNew: false, ...extra };
}

function markNoEol(hunk: Hunk): void {
  const last = hunk.lines[hunk.lines.length - 1];
  if (!last) return;
  if (last.kind !== "+") hunk.noEolOld = true;
  if (last.kind !== "-") hunk.noEolNew = true;
}

function parseUnified(lines: string[]): ParseOutcome {
  const files: FilePatch[] = [];
  let i = 0;
  let lastNonEmpty = lines.length - 1;
  while (lastNonEmpty >= 0 && lines[lastNonEmpty] === "") lastNonEmpty--;
  const isFileHeader = (k: number): boolean =>
    lines[k]!.startsWith("--- ") && !!lines[k + 1]?.startsWith("+++ ");
  while (i < lines.length) {
    if (isFileHeader(i)) {
      const from = headerPath(lines[i]!.slice(4));
      const to = headerPath(lines[i + 1]!.slice(4));
      if (from === null && to === null)
        return { ok: false, error: `Both sides are /dev/null at: ${lines[i]}` };
      const file: FilePatch =
        from === null
          ? { kind: "add", path: to!, hunks: [] }
          : to === null
            ? { kind: "delete", path: from, hunks: [] }
            : { kind: "modify", path: from, hunks: [] };
      if (from !== null && to !== null && from !== to) file.moveTo = to;
      files.push(file);
      i += 2;
      continue;
    }
    const line = lines[i]!;
    if (!line.startsWith("@@")) {
      i++; // diff --git, index, mode lines, prose around the patch
      continue;
    }
    const file = files[files.length - 1];
    if (!file) return { ok: false, error: `Hunk before any '--- a/path' / '+++ b/path' header: ${line}` };
    const m = HUNK_HEADER.exec(line);
    const hunk = newHunk(line, m ? { oldStart: Number(m[1]) } : {});
    i++;
    while (i < lines.length) {
      const l = lines[i]!;
      if (l.startsWith("@@") || l.startsWith("diff --git ") || isFileHeader(i)) break;
      if (l.startsWith("\\")) markNoEol(hunk);
      else if (l === "") {
        // An empty line is an empty context line, unless only blank lines follow (the patch's end).
        if (i > lastNonEmpty) break;
        hunk.lines.push({ kind: " ", text: "" });
      } else if (l[0] === " " || l[0] === "-" || l[0] === "+") {
        hunk.lines.push({ kind: l[0], text: l.slice(1) });
      } else break;
      i++;
    }
    file.hunks.push(hunk);
  }
  if (files.length === 0) {
    return {
      ok: false,
      error:
        "No file headers found. Use a unified diff ('--- a/path', '+++ b/path', then '@@ -N,M +N,M @@' " +
        "hunks with ' ', '-', '+' lines) or a '*** Begin Patch' block.",
    };
  }
  for (const f of files) {
    if (f.kind === "modify" && f.hunks.length === 0 && !f.moveTo) {
      return { ok: false, error: `No @@ hunks for ${f.path}.` };
    }
  }
  return { ok: true, files };
}

function parseV4A(lines: string[]): ParseOutcome {
  const files: FilePatch[] = [];
  let file: FilePatch | undefined;
  let hunk: Hunk | undefined;
  const begin = lines.findIndex((l) => l.trim() === "*** Begin Patch");
  for (let i = begin + 1; i < lines.length; i++) {
    const l = lines[i]!;
    const directive = /^\*\*\* (Add File|Delete File|Update File|Move to): (.+)$/.exec(l.trim());
    if (l.trim() === "*** End Patch") break;
    if (directive) {
      const [, what, path] = directive;
      if (what === "Move to") {
        if (!file) return { ok: false, error: `'*** Move to' without '*** Update File' at line ${i + 1}.` };
        file.moveTo = path!.trim();
        continue;
      }
      const kind = what === "Add File" ? "add" : what === "Delete File" ? "delete" : "modify";
      file = { kind, path: path!.trim(), hunks: [] };
      files.push(file);
      hunk = kind === "add" ? newHunk(l) : undefined;
      if (hunk) file.hunks.push(hunk);
      continue;
    }
    if (!file) {
      if (l.trim() === "") continue;
      return { ok: false, error: `Expected '*** Update File: PATH' (or Add/Delete) at line ${i + 1}: ${l}` };
    }
    if (l.trim() === "*** End of File") continue;
    if (l.startsWith("@@")) {
      const anchor = l
        .replace(/^@@+/, "")
        .replace(/@@+\s*$/, "")
        .trim();
      hunk = newHunk(l, anchor ? { anchor } : {});
      file.hunks.push(hunk);
      continue;
    }
    if (file.kind === "delete") continue;
    if (!hunk) {
      hunk = newHunk("@@");
      file.hunks.push(hunk);
    }
    if (l[0] === " " || l[0] === "-" || l[0] === "+") hunk.lines.push({ kind: l[0], text: l.slice(1) });
    else if (l === "") hunk.lines.push({ kind: file.kind === "add" ? "+" : " ", text: "" });
    else
      return {
        ok: false,
        error: `Unexpected line ${i + 1} in ${file.path} (lines must start with ' ', '-' or '+'): ${l}`,
      };
  }
  if (files.length === 0) return { ok: false, error: "The '*** Begin Patch' block names no files." };
  return { ok: true, files };
}

export function parsePatch(text: string): ParseOutcome {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.some((l) => l.trim() === "*** Begin Patch")) return parseV4A(lines);
  return parseUnified(lines);
}
