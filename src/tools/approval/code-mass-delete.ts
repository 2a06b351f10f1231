import { calleeName, type Evaluator } from "./code-eval.js";
import type { Lang } from "./code-lex.js";
import { type Expr, type Program, UNKNOWN } from "./code-parse.js";
import { onModule } from "./interpreter-rules.js";

/**
 * Interpreter code that deletes whatever a glob or a folder listing returns: `unlink glob "d/*"`,
 * `for f in glob.glob(p): os.remove(f)`, `fs.readdirSync(d).forEach(f => fs.unlinkSync(...))`,
 * `FileUtils.rm_rf Dir["d/*"]`. The files it deletes are only known at run time, so the
 * equivalent shell commands cannot be judged one by one: such code asks. Where the glob or the
 * folder is written out, it is also screened as `rm [-r] GLOB`, so `/*` or a system folder is
 * refused like the shell command would be.
 */

type Call = Extract<Expr, { k: "call" }>;

export interface MassDelete {
  /** Some delete removes whole trees (`shutil.rmtree`, `rm_rf`, `rmSync(..., {recursive: true})`). */
  recursive: boolean;
  /** The globs it deletes from, where they are written out (`/srv/*`, `/data/*` for a listing of /data). */
  patterns: string[];
}

/** Delete functions by name, and whether they remove whole trees. */
const DELETES: Record<Lang, Readonly<Record<string, boolean>>> = {
  python: { remove: false, unlink: false, rmtree: true, rmdir: false, removedirs: false },
  node: {
    rmSync: false,
    rm: false,
    unlinkSync: false,
    unlink: false,
    rmdirSync: false,
    rmdir: false,
    remove: true,
    removeSync: true,
  },
  ruby: {
    rm_rf: true,
    rm_r: true,
    rmtree: true,
    remove_dir: true,
    remove_entry: true,
    remove_entry_secure: true,
    rm: false,
    rm_f: false,
    remove: false,
    unlink: false,
    delete: false,
    rmdir: false,
  },
  perl: { unlink: false, rmdir: false, rmtree: true, remove_tree: true },
  php: { unlink: false, rmdir: false },
};

/** Calls that list files: a glob (its argument is the pattern) or a folder listing (its argument is the folder). */
const GLOBS = /^(?:i?glob|rglob|globSync)$/;
const LISTINGS: Record<Lang, RegExp> = {
  python: /^(?:listdir|scandir|walk|iterdir)$/,
  node: /^(?:readdirSync|readdir|opendirSync|opendir)$/,
  ruby: /^(?:entries|children|each_child|foreach)$/,
  perl: /^readdir$/,
  php: /^(?:scandir|readdir)$/,
};
/** Listings the call list cannot show: Ruby's `Dir[...]`, Perl's `<*.txt>`, `glob "..."` and `readdir D`. */
const TEXT_LISTINGS: Partial<Record<Lang, RegExp>> = {
  ruby: /\bDir\s*\[\s*(['"])([^'"]*)\1/g,
  perl: /<([^<>\s]*[*?][^<>\s]*)>|\bglob\s*\(?\s*(['"])([^'"]*)\2|\breaddir\b/g,
};
/** Perl's deletes also run on `$_` or on a list with no parentheses at all (`unlink <*.tmp>`). */
const PERL_DELETE = /\b(?:unlink|rmtree|remove_tree)\b/;

const known = (text: string): boolean => text !== "" && !text.includes(UNKNOWN);
const receiver = (c: Call): Expr | undefined => (c.callee.k === "member" ? c.callee.obj : undefined);

/** `rmSync(p, {recursive: true})` / `rm(p, recursive: true)`. */
const recursiveOption = (c: Call): boolean =>
  c.kw.recursive !== undefined ||
  c.args.some((a) => a.k === "obj" && a.entries.recursive?.k === "id" && a.entries.recursive.name === "true");

/** A delete function named as a value (`map(os.remove, ...)`, `array_map("unlink", ...)`). */
function deleteValue(e: Expr, lang: Lang): boolean | undefined {
  const name = e.k === "member" ? e.name : e.k === "str" && lang === "php" ? e.parts.join("") : undefined;
  return name !== undefined && Object.hasOwn(DELETES[lang], name) ? DELETES[lang][name] : undefined;
}

/** The deletes whose target is only known at run time, and whether any removes a tree. */
function unknownDeletes(program: Program, ev: Evaluator, lang: Lang): { found: boolean; recursive: boolean } {
  let found = false;
  let recursive = false;
  const table = DELETES[lang];
  for (const c of program.calls) {
    for (const a of c.args) {
      const tree = deleteValue(a, lang);
      if (tree !== undefined) {
        found = true;
        recursive ||= tree;
      }
    }
    const name = calleeName(c.callee, ev);
    if (name === undefined || !Object.hasOwn(table, name)) continue;
    const on = receiver(c);
    // pathlib's `p.unlink()` runs on a path object the loop made; other methods must be a module's.
    const pathMethod = lang === "python" && on !== undefined && (name === "unlink" || name === "rmdir");
    const gated = lang === "python" || lang === "node" || lang === "ruby";
    if (gated && !pathMethod && !onModule(c, ev)) continue;
    const target = pathMethod ? on : (c.args[0] ?? c.kw.path);
    if (target !== undefined && known(ev.text(target))) continue;
    found = true;
    recursive ||= table[name]! || recursiveOption(c);
  }
  return { found, recursive };
}

/** The globs the program lists files from, as far as they are written out (undefined: none listed). */
function listedGlobs(program: Program, ev: Evaluator, lang: Lang, code: string): string[] | undefined {
  let listed = false;
  const globs: string[] = [];
  for (const c of program.calls) {
    const name = calleeName(c.callee, ev);
    if (name === undefined) continue;
    const isGlob = GLOBS.test(name);
    if (!isGlob && !LISTINGS[lang].test(name)) continue;
    listed = true;
    // `Path(d).glob("*")` lists inside the path it is called on.
    const on = receiver(c);
    const base = on && on.k === "call" && !ev.isNamespace(on) ? ev.text(on) : undefined;
    const arg = c.args[0] === undefined ? "." : ev.text(c.args[0]);
    const glob = isGlob ? (base && known(base) ? `${base.replace(/\/+$/, "")}/${arg}` : arg) : `${arg}/*`;
    if (known(glob)) globs.push(glob.replace(/^\.\/(?=.)/, ""));
  }
  const text = TEXT_LISTINGS[lang];
  if (text) {
    for (const m of code.matchAll(text)) {
      listed = true;
      const glob = m[1] && lang === "perl" ? m[1] : (m[3] ?? m[2]);
      if (glob && !glob.includes("$")) globs.push(glob);
    }
  }
  return listed ? [...new Set(globs)] : undefined;
}

/** What `code` deletes by glob or listing, or undefined when it does not. Never throws. */
export function massDeleteIn(
  program: Program,
  ev: Evaluator,
  lang: Lang,
  code: string,
): MassDelete | undefined {
  try {
    const globs = listedGlobs(program, ev, lang, code);
    if (!globs) return undefined;
    const deletes = unknownDeletes(program, ev, lang);
    const perl = lang === "perl" && PERL_DELETE.test(code);
    if (!deletes.found && !perl) return undefined;
    const recursive = deletes.recursive || (lang === "perl" && /\b(?:rmtree|remove_tree)\b/.test(code));
    return { recursive, patterns: globs };
  } catch {
    return undefined;
  }
}
