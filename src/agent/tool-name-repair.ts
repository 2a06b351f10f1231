/**
 * Finding the tool a model meant when the name it sent matches none as written. Models wrap
 * names in quotes or markup (`"terminal"`, `<terminal>`, `terminal" parameter="command"`), add a
 * namespace or an index (`functions.terminal:0`), spell them like classes (`ReadFileTool`,
 * `write-file_Tool`), repeat them (`read_fileread_file`) or mistype them (`terminall`). Pure: an
 * answer is always one of the names it was given.
 */

/** `tool` / `tools` as a leading or trailing word is how class-style names decorate a tool. */
const TOOL_WORD = /^tools?$/;

/**
 * Readings of `raw` to try as a tool name, the most literal first (duplicates and empty strings
 * dropped). Each is a plain name: no quotes, markup, namespace or index.
 */
export function nameVariants(raw: string): string[] {
  const cleaned = raw
    .trim()
    .replace(/^[\s"'`</]+/, "") // opening quotes and tags
    .split(/["'`<>(){}[\]]|\s+[\w-]+\s*=/)[0]! // stray attributes: `terminal" parameter="command"`
    .replace(/[\s/]+$/, "")
    .replace(/:\d+$/, ""); // an index: `terminal:0`
  const bare = cleaned.replace(/^(?:[A-Za-z_][\w-]*(?:\.|::))+/, ""); // `functions.terminal`
  const out: string[] = [];
  for (const base of [cleaned, bare]) {
    out.push(base);
    const snake = snakeCase(base);
    out.push(snake, stripToolWord(snake));
    const repeated = /^(.+?)(?:_?\1)+$/.exec(snake)?.[1];
    if (repeated) out.push(repeated, stripToolWord(repeated));
  }
  return [...new Set(out)].filter((v) => v !== "" && v !== "_");
}

/** `ReadFile_tool` → `read_file_tool`, `HTTPFetch` → `http_fetch`, `write-file` → `write_file`. */
function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[\s.\-:]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "")
    .toLowerCase();
}

/** Drops `tool` words at either end (`todo_tool_tool` → `todo`), never the last word left. */
function stripToolWord(snake: string): string {
  const words = snake.split("_");
  while (words.length > 1 && TOOL_WORD.test(words[0]!)) words.shift();
  while (words.length > 1 && TOOL_WORD.test(words[words.length - 1]!)) words.pop();
  return words.join("_");
}

/** Case and separators ignored, as the registry itself compares names. */
const key = (name: string): string => name.toLowerCase().replace(/[-_\s]/g, "");

/**
 * The offered tool `raw` most likely names, or undefined. A reading that equals a tool (case and
 * separators aside) wins; otherwise a tool within typo distance, only when exactly one is.
 */
export function repairToolName(raw: string, offered: Iterable<string>): string | undefined {
  const tools = [...new Set(offered)];
  const variants = nameVariants(raw);
  for (const v of variants) {
    const same = tools.filter((t) => key(t) === key(v));
    if (same.length === 1) return same[0];
  }
  return nearMiss(variants, tools);
}

/**
 * The one tool that some reading misses by a typo: at most 2 edits (a swap of neighbours counts
 * as one) when both names have 6 or more letters, 1 for shorter ones. Two or more → undefined.
 */
export function nearMiss(variants: readonly string[], tools: readonly string[]): string | undefined {
  const close = tools.filter((t) =>
    variants.some((v) => {
      const a = key(v);
      const b = key(t);
      const cap = Math.min(a.length, b.length) >= 6 ? 2 : 1;
      return editDistance(a, b, cap) <= cap;
    }),
  );
  return close.length === 1 ? close[0] : undefined;
}

/** Optimal-string-alignment distance; anything above `cap` comes back as `cap + 1`. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, before[j - 2]! + 1);
      cur.push(v);
    }
    if (Math.min(...cur) > cap) return cap + 1;
    before = prev;
    prev = cur;
  }
  return Math.min(prev[b.length]!, cap + 1);
}
