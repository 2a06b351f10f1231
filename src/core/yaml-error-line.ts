import { type CST, type LineCounter, Parser, type YAMLError } from "yaml";

/**
 * The 1-based line to name for a YAML parse error. The parser reports an unclosed quote or flow
 * collection (`[`, `{`) where it gave up: on the next key, or past the last line. Such errors are
 * reported where the unclosed construct opens, and no error ever names a line past the text's end.
 */
export function yamlErrorLine(text: string, err: YAMLError, counter: LineCounter): number {
  const at = err.pos[0];
  const opened = lastUnclosedBefore(text, at);
  const line = counter.linePos(opened ?? at).line;
  return Math.max(1, Math.min(line, lineCount(text)));
}

/** Lines as an editor numbers them: a final newline does not start another line. */
function lineCount(text: string): number {
  if (text === "") return 1;
  const breaks = text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return /(\r\n|\r|\n)$/.test(text) ? breaks : breaks + 1;
}

/** Offset of the last quote or flow collection left open before `pos`, if any. */
function lastUnclosedBefore(text: string, pos: number): number | undefined {
  let found: number | undefined;
  const note = (offset: number): void => {
    if (offset < pos && (found === undefined || offset > found)) found = offset;
  };
  const walk = (token: CST.Token | null | undefined): void => {
    if (!token) return;
    switch (token.type) {
      case "document":
        walk(token.value);
        return;
      case "flow-collection":
      case "block-map":
      case "block-seq":
        if (
          token.type === "flow-collection" &&
          !token.end.some((t) => t.type === "flow-seq-end" || t.type === "flow-map-end")
        ) {
          note(token.offset);
        }
        for (const item of token.items as CST.CollectionItem[]) {
          walk(item.key);
          walk(item.value);
        }
        return;
      case "double-quoted-scalar":
      case "single-quoted-scalar":
        if (!isClosedQuote(token.source)) note(token.offset);
        return;
      default:
        return;
    }
  };
  for (const token of new Parser().parse(text)) walk(token);
  return found;
}

/** `"..."` closed by an unescaped quote; `'...'` closed by a quote that is not half of `''`. */
function isClosedQuote(source: string): boolean {
  if (source.startsWith('"')) {
    if (source.length < 2 || !source.endsWith('"')) return false;
    const backslashes = /\\*$/.exec(source.slice(0, -1))?.[0].length ?? 0;
    return backslashes % 2 === 0;
  }
  return /^'(?:[^']|'')*'$/s.test(source);
}
