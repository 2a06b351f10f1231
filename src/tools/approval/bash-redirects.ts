import type { Node } from "web-tree-sitter";
import { expandHeredoc, expandString, screenInner, type WordHost } from "./bash-words.js";

/**
 * Redirections in the bash grammar's tree: file targets (with their possible values), here-strings
 * and here-documents (their text, expanded unless the delimiter is quoted). The grammar hangs what
 * follows a here-document on its node (`cat <<EOF | sh && ls`); that is handed back to the walker.
 */

export interface FileRedirect {
  /** `>`, `>>` or `<` (`&>`, `>|` and `<>` read as `>`; descriptor duplication is dropped). */
  op: string;
  alts: string[];
}

export interface Redirections {
  redirects: FileRedirect[];
  /** Here-string texts. */
  stdin: string[];
}

const named = (node: Node): Node[] => node.namedChildren.filter((c): c is Node => c !== null);

export function redirections(host: WordHost, src: string, nodes: readonly Node[]): Redirections {
  const redirects: FileRedirect[] = [];
  const stdin: string[] = [];
  for (const r of nodes) {
    if (r.type === "herestring_redirect") {
      stdin.push(
        ...expandString(
          host,
          src,
          named(r).filter((c) => c.type !== "file_descriptor"),
        ),
      );
      continue;
    }
    if (r.type !== "file_redirect") {
      screenInner(host, r);
      continue;
    }
    const op = r.children.find((c) => c !== null && !c.isNamed)?.type ?? ">";
    const dest = r.childrenForFieldName("destination").filter((c): c is Node => c !== null);
    const target = dest.map((d) => d.text).join("");
    if (/^[<>]&-?$/.test(op) && /^(?:\d+-?|-)?$/.test(target)) continue;
    const mapped = op.startsWith("<") && op !== "<>" ? "<" : op.endsWith(">>") ? ">>" : ">";
    redirects.push({ op: mapped, alts: expandString(host, src, dest) });
  }
  return { redirects, stdin };
}

/** What a here-document node holds besides its text. */
export interface Heredoc {
  /** The body as the command reads it; undefined when the grammar found none. */
  text: string | undefined;
  /** Words, redirections and the `| ...` / `&& ...` that the grammar put inside the node. */
  args: Node[];
  redirects: Node[];
  pipe: Node | undefined;
  after: Node[];
}

export function heredoc(host: WordHost, src: string, node: Node): Heredoc {
  const out: Heredoc = { text: undefined, args: [], redirects: [], pipe: undefined, after: [] };
  let quoted = false;
  let stripTabs = false;
  node.children.forEach((c, i) => {
    if (!c) return;
    const field = node.fieldNameForChild(i);
    if (c.type === "<<-") stripTabs = true;
    else if (c.type === "heredoc_start") quoted = /['"\\]/.test(c.text);
    else if (field === "argument") out.args.push(c);
    else if (field === "redirect") out.redirects.push(c);
    else if (field === "right") out.after.push(c);
    else if (c.type === "pipeline") out.pipe = c;
    else if (c.type === "heredoc_body") {
      const body = (quoted ? c.text : expandHeredoc(host, src, c)).replace(/\n[\t ]*$/, "");
      out.text = stripTabs ? body.replace(/^\t+/gm, "") : body;
    }
  });
  return out;
}

/** Splits the statement after a here-document's `|` into pipeline stages and what follows `&&`/`||`. */
export function continuation(pipe: Node): { stages: Node[]; rest: Node[] } {
  let x: Node | undefined = named(pipe)[0];
  const rest: Node[] = [];
  while (x?.type === "list") {
    const [left, ...right] = named(x);
    rest.unshift(...right);
    x = left;
  }
  if (!x) return { stages: [], rest };
  return { stages: x.type === "pipeline" ? named(x) : [x], rest };
}
