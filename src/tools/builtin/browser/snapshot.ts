/**
 * Page snapshots for the model: Playwright's accessibility snapshot (its "ai" mode) rewritten so
 * that every interactive element carries a short ref `@eN` on the line with its role and name
 * (`- button "Submit" @e3`). Pure text processing; the page work lives in session.ts.
 */

/** Roles a user acts on: these get refs. */
const INTERACTIVE_ROLES = new Set([
  "button",
  "link",
  "textbox",
  "searchbox",
  "checkbox",
  "radio",
  "combobox",
  "listbox",
  "option",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "switch",
  "slider",
  "spinbutton",
  "treeitem",
]);

/** Wrappers that say nothing by themselves: without a name, text or ref their children move up. */
const WRAPPER_ROLES = new Set(["generic", "group", "none", "presentation"]);

/** Text longer than this is clipped in compact snapshots (full ones keep it whole). */
const COMPACT_TEXT_CHARS = 200;
/** Options of a native dropdown shown in compact snapshots; browser_type names the rest when asked. */
const COMPACT_OPTIONS = 8;

export interface RefEntry {
  playwrightRef: string;
  role: string;
  /** Role and name as the snapshot showed them (`button "Submit"`), for messages. */
  label: string;
}

/**
 * The refs of one page: Playwright's refs (`e12`, `f1e3` in frames) numbered `@e1`, `@e2`, ... in
 * the order they are first shown. An element keeps its number across snapshots of the same page;
 * a new document starts again from `@e1`.
 */
export class RefTable {
  private readonly byPlaywright = new Map<string, number>();
  private readonly entries: RefEntry[] = [];
  /** Bumped on every reset: lets callers tell whether refs they saw are still this page's. */
  generation = 0;

  /** The number of an element, given one the first time it is seen; `label` is its role and name. */
  number(playwrightRef: string, role: string, label: string): number {
    let n = this.byPlaywright.get(playwrightRef);
    if (n === undefined) {
      this.entries.push({ playwrightRef, role, label });
      n = this.entries.length;
      this.byPlaywright.set(playwrightRef, n);
    } else {
      this.entries[n - 1] = { playwrightRef, role, label };
    }
    return n;
  }

  /** The element behind `@eN` (also accepts `eN` and `N`), or undefined. */
  resolve(ref: string): RefEntry | undefined {
    const m = /^@?e?(\d+)$/i.exec(ref.trim());
    if (!m) return undefined;
    return this.entries[Number(m[1]) - 1];
  }

  get size(): number {
    return this.entries.length;
  }

  reset(): void {
    this.byPlaywright.clear();
    this.entries.length = 0;
    this.generation += 1;
  }
}

export interface SnapshotLine {
  depth: number;
  role: string;
  /** The accessible name as Playwright quotes it (`"Submit"`), or "". */
  name: string;
  /** `[level=1]`, `[checked]`, ... (refs, cursors and boxes removed). */
  attrs: string[];
  /** Playwright's ref, when it gave one. */
  ref?: string;
  pointer: boolean;
  box?: { x: number; y: number; width: number; height: number };
  /** What follows the colon: inline text, or "" when children follow, or undefined for a leaf. */
  tail: string | undefined;
}

const LINE = /^(\s*)- (.*)$/;
const KEY = /^([A-Za-z/][\w-]*)(?: ("(?:[^"\\]|\\.)*"))?((?: \[[^\]]*\])*)$/;

/**
 * Splits an item into its key (`role "name" [attrs]`) and what follows the colon. Playwright
 * single-quotes a key that YAML would misread (a name with ": " in it), doubling inner quotes.
 */
function splitItem(item: string): { key: string; tail: string | undefined } | undefined {
  let key: string;
  let rest: string;
  if (item.startsWith("'")) {
    key = "";
    let i = 1;
    for (;;) {
      const q = item.indexOf("'", i);
      if (q < 0) return undefined;
      key += item.slice(i, q);
      if (item[q + 1] !== "'") {
        rest = item.slice(q + 1);
        break;
      }
      key += "'";
      i = q + 2;
    }
  } else {
    const colon = item.search(/:( |$)/);
    key = colon < 0 ? item : item.slice(0, colon);
    rest = colon < 0 ? "" : item.slice(colon);
  }
  if (rest === "") return { key, tail: undefined };
  if (rest === ":") return { key, tail: "" };
  return rest.startsWith(": ") ? { key, tail: rest.slice(2) } : undefined;
}

/** One line of Playwright's snapshot, or undefined for lines of another shape (kept as they are). */
export function parseLine(line: string): SnapshotLine | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  const item = splitItem(m[2]!);
  const h = item && KEY.exec(item.key);
  if (!item || !h) return undefined;
  const attrs: string[] = [];
  let ref: string | undefined;
  let pointer = false;
  let box: SnapshotLine["box"];
  for (const a of (h[3] ?? "").match(/\[[^\]]*\]/g) ?? []) {
    const inner = a.slice(1, -1);
    if (inner.startsWith("ref=")) ref = inner.slice(4);
    else if (inner === "cursor=pointer") pointer = true;
    else if (inner.startsWith("box=")) {
      const [x, y, width, height] = inner.slice(4).split(",").map(Number);
      box = { x: x ?? 0, y: y ?? 0, width: width ?? 0, height: height ?? 0 };
    } else attrs.push(a);
  }
  return {
    depth: Math.floor(m[1]!.length / 2),
    role: h[1]!,
    name: h[2] ?? "",
    attrs,
    ...(ref !== undefined ? { ref } : {}),
    pointer,
    ...(box ? { box } : {}),
    tail: item.tail,
  };
}

export interface RenderedSnapshot {
  text: string;
  /** Interactive elements shown (refs). */
  refs: number;
  /** Viewport boxes of the page's own refs (not those in frames), when the snapshot carried boxes. */
  boxes: Array<{ ref: number; x: number; y: number; width: number; height: number }>;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * Rewrites a Playwright "ai" snapshot: refs become `@eN` (interactive elements only, numbered
 * through `table`), nameless wrappers are dropped with their children moved up, and cursor/box
 * annotations go. `full=false` also drops link URLs, clips long text and shortens long dropdowns.
 */
export function renderSnapshot(raw: string, table: RefTable, full: boolean): RenderedSnapshot {
  const out: string[] = [];
  const boxes: RenderedSnapshot["boxes"] = [];
  // Per source depth: the output depth its children get, whether it is (inside) an interactive
  // element or a frame, and the dropdown options it showed and left out.
  type Open = {
    depth: number;
    childDepth: number;
    interactive: boolean;
    frame: boolean;
    options: number;
    hidden: number;
  };
  const stack: Open[] = [];
  const close = (entry: Open) => {
    if (entry.hidden > 0) out.push(`${"  ".repeat(entry.childDepth)}- text: … ${entry.hidden} more options`);
  };
  let refs = 0;
  for (const rawLine of raw.split("\n")) {
    if (!rawLine.trim()) continue;
    const line = parseLine(rawLine);
    if (!line) {
      out.push(rawLine.replace(/ \[ref=[^\]]*\]/g, ""));
      continue;
    }
    while (stack.length > 0 && stack.at(-1)!.depth >= line.depth) close(stack.pop()!);
    const parent = stack.at(-1);
    const depth = parent?.childDepth ?? 0;
    const insideInteractive = parent?.interactive ?? false;
    const inFrame = parent?.frame ?? false;
    const isProperty = line.role.startsWith("/");
    if (isProperty && !full && line.role === "/url") continue;
    if (!full && line.role === "option" && line.ref === undefined && parent) {
      parent.options += 1;
      if (parent.options > COMPACT_OPTIONS) {
        parent.hidden += 1;
        continue;
      }
    }
    const interactive =
      line.ref !== undefined && (INTERACTIVE_ROLES.has(line.role) || (line.pointer && !insideInteractive));
    const text = line.tail ?? "";
    // Focus on a bare wrapper (usually the page body) tells the model nothing.
    const wrapper =
      WRAPPER_ROLES.has(line.role) && !line.name && !interactive && line.attrs.every((a) => a === "[active]");
    if (wrapper && !text) {
      stack.push({
        depth: line.depth,
        childDepth: depth,
        interactive: insideInteractive,
        frame: inFrame,
        options: 0,
        hidden: 0,
      });
      continue;
    }
    let head = wrapper ? "text" : line.role;
    if (line.name) head += ` ${line.name}`;
    const attrs = wrapper ? [] : line.attrs;
    if (attrs.length > 0) head += ` ${attrs.join(" ")}`;
    if (interactive) {
      const n = table.number(line.ref!, line.role, line.name ? `${line.role} ${line.name}` : line.role);
      head += ` @e${n}`;
      refs += 1;
      // Boxes inside frames are relative to their frame, not to the page: left out.
      if (line.box && !inFrame) boxes.push({ ref: n, ...line.box });
    }
    const tail =
      line.tail === undefined ? "" : text ? `: ${full ? text : clip(text, COMPACT_TEXT_CHARS)}` : ":";
    out.push(`${"  ".repeat(depth)}- ${head}${tail}`);
    stack.push({
      depth: line.depth,
      childDepth: depth + 1,
      interactive: interactive || insideInteractive,
      frame: inFrame || line.role === "iframe",
      options: 0,
      hidden: 0,
    });
  }
  while (stack.length > 0) close(stack.pop()!);
  // A parent whose children were all dropped keeps a dangling colon: remove it.
  for (let i = 0; i < out.length; i++) {
    const line = out[i]!;
    if (!line.endsWith(":")) continue;
    const next = out[i + 1];
    const indent = line.length - line.trimStart().length;
    if (next === undefined || next.length - next.trimStart().length <= indent) out[i] = line.slice(0, -1);
  }
  return { text: out.join("\n"), refs, boxes };
}

/**
 * Cuts a snapshot to `maxChars` at a line boundary, with a note saying what was left out and how
 * to see more. Returns the text unchanged when it fits.
 */
export function truncateSnapshot(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const cut = text.lastIndexOf("\n", maxChars);
  const head = text.slice(0, cut > 0 ? cut : maxChars);
  const hidden = text.slice(head.length).split("\n").filter(Boolean).length;
  return {
    text: `${head}\n[... ${hidden} more lines not shown (snapshot over ${maxChars} characters): scroll and take a new snapshot, or use browser_console with an expression to read specific parts]`,
    truncated: true,
  };
}
