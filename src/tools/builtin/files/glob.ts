/**
 * Glob matching for the pure-JS search fallback, with ripgrep's `--glob` semantics: a glob without
 * `/` matches a file's name at any depth; one with `/` matches the path relative to the search root.
 * Supports `*`, `**`, `?`, `[...]` and `{a,b}`.
 */

function escapeRe(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

export function globToRegExp(glob: string, caseInsensitive = false): RegExp {
  let re = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slashAfter = glob[i + 2] === "/";
        re += slashAfter ? "(?:.*/)?" : ".*";
        i += slashAfter ? 2 : 1;
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close < 0) re += "\\[";
      else {
        let body = glob.slice(i + 1, close).replace(/\\/g, "\\\\");
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        re += `[${body}]`;
        i = close;
      }
    } else if (c === "{") {
      braces++;
      re += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      re += ")";
    } else if (c === "," && braces > 0) re += "|";
    else if (c === "\\" && i + 1 < glob.length) re += escapeRe(glob[++i]!);
    else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`, caseInsensitive ? "i" : "");
}

export type GlobMatcher = (relPath: string) => boolean;

/** A predicate over `/`-separated paths relative to the search root. */
export function globMatcher(glob: string, caseInsensitive = false): GlobMatcher {
  const trimmed = glob.replace(/^\.\//, "");
  const re = globToRegExp(trimmed.replace(/^\//, ""), caseInsensitive);
  if (!trimmed.includes("/")) return (rel) => re.test(rel.slice(rel.lastIndexOf("/") + 1));
  return (rel) => re.test(rel);
}

/** True when `s` has glob syntax; a bare word is searched as `*word*`. */
export function hasGlobSyntax(s: string): boolean {
  return /[*?[{]/.test(s);
}
