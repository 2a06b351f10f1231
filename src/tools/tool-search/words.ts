/**
 * Words for the tool index: names split at underscores, dashes and camelCase humps, lower-cased,
 * filler words dropped, and a light suffix stemming so "files", "listing" and "created" meet
 * "file", "list" and "create". Queries and tools go through the same function.
 */

const FILLER = new Set(
  "a an and are as at be by can do does for from how i in is it me my of on or that the this to with you your".split(
    " ",
  ),
);

/** Strips common English suffixes; short words stay as they are. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith("ies") && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith("ing") && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith("ed") && w.length > 4) w = w.slice(0, -2);
  else if (/(?:ss|sh|ch|x)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) w = w.slice(0, -1);
  // "create", "creating" and "created" all end as "creat".
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1);
  return w;
}

export function words(text: string): string[] {
  const out: string[] = [];
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
  for (const raw of spaced.toLowerCase().split(/[^a-z0-9]+/)) {
    if (raw && !FILLER.has(raw)) out.push(stem(raw));
  }
  return out;
}
