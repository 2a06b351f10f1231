/**
 * A small unified-diff generator (3 lines of context by default). Common leading and trailing lines
 * are trimmed, then the middle is diffed with an LCS table; a middle too big for the table is shown
 * as one replacement, which is still a correct diff.
 */

type Op = { kind: " " | "-" | "+"; text: string };

const NO_EOL = "\u0000no-eol";
const MAX_TABLE_CELLS = 2_500_000;

/** Lines with a sentinel on a last line that lacks its newline, so that difference shows up. */
function diffLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += NO_EOL;
  return lines;
}

function lcsOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((text) => ({ kind: "+", text }));
  if (m === 0) return a.map((text) => ({ kind: "-", text }));
  if ((n + 1) * (m + 1) > MAX_TABLE_CELLS) {
    return [...a.map((text): Op => ({ kind: "-", text })), ...b.map((text): Op => ({ kind: "+", text }))];
  }
  const w = m + 1;
  const table = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * w + j] =
        a[i] === b[j]
          ? table[(i + 1) * w + j + 1]! + 1
          : Math.max(table[(i + 1) * w + j]!, table[i * w + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: " ", text: a[i]! });
      i++;
      j++;
    } else if (table[(i + 1) * w + j]! >= table[i * w + j + 1]!) {
      ops.push({ kind: "-", text: a[i++]! });
    } else {
      ops.push({ kind: "+", text: b[j++]! });
    }
  }
  while (i < n) ops.push({ kind: "-", text: a[i++]! });
  while (j < m) ops.push({ kind: "+", text: b[j++]! });
  return ops;
}

function editScript(a: string[], b: string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf])
    suf++;
  return [
    ...a.slice(0, pre).map((text): Op => ({ kind: " ", text })),
    ...lcsOps(a.slice(pre, a.length - suf), b.slice(pre, b.length - suf)),
    ...a.slice(a.length - suf).map((text): Op => ({ kind: " ", text })),
  ];
}

function renderLine(op: Op): string {
  if (!op.text.endsWith(NO_EOL)) return `${op.kind}${op.text}`;
  return `${op.kind}${op.text.slice(0, -NO_EOL.length)}\n\\ No newline at end of file`;
}

/** Unified diff of two texts (LF line endings), with `--- a/PATH` / `+++ b/PATH` headers; "" when equal. */
export function unifiedDiff(oldText: string, newText: string, path: string, context = 3): string {
  const ops = editScript(diffLines(oldText), diffLines(newText));
  const changed: number[] = [];
  ops.forEach((op, i) => {
    if (op.kind !== " ") changed.push(i);
  });
  if (changed.length === 0) return "";

  const display = path.replace(/^\/+/, "");
  const out = [`--- a/${display}`, `+++ b/${display}`];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k]! - context);
    let last = changed[k]!;
    while (k + 1 < changed.length && changed[k + 1]! - last <= 2 * context) last = changed[++k]!;
    k++;
    const end = Math.min(ops.length, last + context + 1);
    let aBefore = 0;
    let bBefore = 0;
    for (let i = 0; i < start; i++) {
      if (ops[i]!.kind !== "+") aBefore++;
      if (ops[i]!.kind !== "-") bBefore++;
    }
    const body = ops.slice(start, end);
    const aLen = body.filter((o) => o.kind !== "+").length;
    const bLen = body.filter((o) => o.kind !== "-").length;
    const aStart = aLen === 0 ? aBefore : aBefore + 1;
    const bStart = bLen === 0 ? bBefore : bBefore + 1;
    out.push(`@@ -${aStart},${aLen} +${bStart},${bLen} @@`, ...body.map(renderLine));
  }
  return `${out.join("\n")}\n`;
}
