import { realpathSync } from "node:fs";
import { SUBSTITUTION } from "./shell-parse.js";

/**
 * Where a path in a command really leads: the absolute path a word names (relative ones from the
 * folder the command runs in, `~` and `$HERMES_HOME` expanded, `..` resolved) and, on this
 * machine, the same path with its symbolic links followed. Lets the screening judge
 * `../.hermes/config.yaml` or a link in the working folder by what they reach.
 */

/** Roots a word may be spelled from; each absolute and normalised, any of them may be unknown. */
export interface WordRoots {
  cwd?: string;
  home?: string;
  hermes?: string;
}

/** `a/./b//c/../d` as `a/b/d`, for an absolute path (`/..` is `/`). */
export function resolveDots(abs: string): string {
  const out: string[] = [];
  for (const part of abs.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}

/** True when `path` is `dir` or inside it (both absolute and normalised). */
export const isUnder = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir === "/" ? "/" : `${dir}/`);

/**
 * The absolute path `word` names, or undefined when that cannot be known statically: a computed
 * part, a glob, an option, a variable other than $HOME / $HERMES_HOME, a relative path with no
 * known working folder.
 */
export function absoluteOf(word: string, roots: WordRoots): string | undefined {
  if (word === "" || word.includes(SUBSTITUTION) || /[*?[\]]/.test(word) || word.startsWith("-"))
    return undefined;
  if (word.startsWith("/")) return resolveDots(word);
  const tilde = /^(?:~|\$HOME)(?=\/|$)/.exec(word);
  if (tilde) return roots.home ? resolveDots(roots.home + word.slice(tilde[0].length)) : undefined;
  if (/^\$HERMES_HOME(?=\/|$)/.test(word))
    return roots.hermes ? resolveDots(roots.hermes + word.slice("$HERMES_HOME".length)) : undefined;
  if (/^[~$]/.test(word) || word.includes("=") || word.includes("://") || /^\d+$/.test(word))
    return undefined;
  return roots.cwd?.startsWith("/") ? resolveDots(`${roots.cwd}/${word}`) : undefined;
}

/**
 * Follows symbolic links: the real path of `abs`, or of its nearest existing parent with the rest
 * appended (a file about to be created through a linked folder). Cached per resolver: one screening
 * asks for the same folders many times.
 */
export function linkFollower(): (abs: string) => string {
  const cache = new Map<string, string>();
  const real = (abs: string): string => {
    const known = cache.get(abs);
    if (known !== undefined) return known;
    let found: string;
    try {
      found = realpathSync.native(abs);
    } catch {
      const cut = abs.lastIndexOf("/");
      found = cut <= 0 ? abs : `${real(abs.slice(0, cut) || "/").replace(/\/$/, "")}/${abs.slice(cut + 1)}`;
    }
    cache.set(abs, found);
    return found;
  };
  return real;
}
