/**
 * The deferred tools of one session as a keyword index: BM25 over the words of each tool's name,
 * parameter names and description (snake_case and camelCase split, light stemming), with words of
 * the name weighing most. Built once, when a session fixes its tool list; a search reads only the
 * postings of the query's words. Pure: imports nothing from the project but types.
 */
import type { FunctionDefinition } from "../registry.js";
import { words } from "./words.js";

/** A deferred tool: its definition and the toolset it came from (an MCP server, a plugin). */
export interface CatalogTool {
  definition: FunctionDefinition["function"];
  toolset: string;
}

export interface SearchHit {
  name: string;
  /** The description, cut at a sentence or word boundary. */
  description: string;
  /** Required parameter names, so a simple call needs no tool_describe. */
  required: string[];
}

/** How much one occurrence of a word counts, by where it appears. */
const NAME_WEIGHT = 3;
const PARAM_WEIGHT = 2;
const DESCRIPTION_WEIGHT = 1;
/** A query word matched only as the start of a longer word counts this much. */
const PREFIX_WEIGHT = 0.5;
/** Added for a query that is a tool's name (or its name without the `mcp_<server>_` part). */
const NAME_MATCH_BONUS = 100;
const K1 = 1.2;
const B = 0.75;
const DESCRIPTION_CHARS = 160;

interface Posting {
  doc: number;
  tf: number;
}

const paramNames = (parameters: Record<string, unknown>): string[] => {
  const props = parameters.properties;
  return props && typeof props === "object" ? Object.keys(props) : [];
};

const requiredOf = (parameters: Record<string, unknown>): string[] =>
  Array.isArray(parameters.required)
    ? parameters.required.filter((r): r is string => typeof r === "string").slice(0, 16)
    : [];

/** A name's comparable form: case and separators do not matter. */
const nameKey = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** The first sentence or so of a description, cut where a reader expects it. */
export function shortDescription(text: string, max = DESCRIPTION_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const sentence = cut.search(/[.!?]\s[^.!?]*$/);
  if (sentence > max / 2) return cut.slice(0, sentence + 1);
  const space = cut.lastIndexOf(" ");
  return `${cut.slice(0, space > max / 2 ? space : max)}…`;
}

export class ToolCatalog {
  private readonly tools: CatalogTool[];
  private readonly byName = new Map<string, number>();
  private readonly byKey = new Map<string, number>();
  /** Server-less MCP names; undefined where two servers share one. */
  private readonly ownKeys = new Map<string, number | undefined>();
  private readonly postings = new Map<string, Posting[]>();
  private readonly lengths: number[] = [];
  private readonly avgLength: number;

  constructor(tools: readonly CatalogTool[]) {
    this.tools = [...tools].sort((a, b) => (a.definition.name < b.definition.name ? -1 : 1));
    for (const [doc, tool] of this.tools.entries()) this.index(tool, doc);
    const total = this.lengths.reduce((sum, n) => sum + n, 0);
    this.avgLength = this.tools.length > 0 ? total / this.tools.length : 1;
  }

  get size(): number {
    return this.tools.length;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get(name: string): CatalogTool | undefined {
    const doc = this.byName.get(name);
    return doc === undefined ? undefined : this.tools[doc];
  }

  /** The deferred tool a model meant by `name`, forgiving case and separators. */
  resolve(name: string): string | undefined {
    if (this.byName.has(name)) return name;
    const doc = this.byKey.get(nameKey(name));
    return doc === undefined ? undefined : this.tools[doc]!.definition.name;
  }

  /** Toolsets with their tool counts, largest first (then by name). */
  sources(): Array<{ toolset: string; count: number }> {
    const counts = new Map<string, number>();
    for (const t of this.tools) counts.set(t.toolset, (counts.get(t.toolset) ?? 0) + 1);
    return [...counts]
      .map(([toolset, count]) => ({ toolset, count }))
      .sort((a, b) => b.count - a.count || (a.toolset < b.toolset ? -1 : 1));
  }

  /**
   * The best `limit` matches for a keyword query, best first; empty when no word matches.
   * `informative`: words every tool has (its server's name, say) match nothing.
   */
  search(query: string, limit: number, informative = false): SearchHit[] {
    const scores = new Map<number, number>();
    const add = (postings: readonly Posting[], weight: number): void => {
      const df = postings.length;
      const idf = Math.log(1 + (this.tools.length - df + 0.5) / (df + 0.5));
      for (const { doc, tf } of postings) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[doc]!) / this.avgLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (weight * idf * tf * (K1 + 1)) / norm);
      }
    };
    for (const term of new Set(words(query))) {
      const exact = this.postings.get(term);
      if (informative && exact?.length === this.tools.length) continue;
      if (exact) add(exact, 1);
      else if (term.length >= 3)
        for (const [word, postings] of this.postings) if (word.startsWith(term)) add(postings, PREFIX_WEIGHT);
    }
    const key = nameKey(query);
    const named = this.byKey.get(key) ?? this.ownKeys.get(key);
    if (named !== undefined) scores.set(named, (scores.get(named) ?? 0) + NAME_MATCH_BONUS);
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, Math.max(0, limit))
      .map(([doc]) => this.hit(doc));
  }

  private hit(doc: number): SearchHit {
    const { name, description, parameters } = this.tools[doc]!.definition;
    return { name, description: shortDescription(description), required: requiredOf(parameters) };
  }

  private index(tool: CatalogTool, doc: number): void {
    const { name, description, parameters } = tool.definition;
    this.byName.set(name, doc);
    this.byKey.set(nameKey(name), doc);
    // MCP tools are also known by their own name, without the server prefix, while that is unique.
    const own = /^mcp_[^_]+_(.+)$/.exec(name)?.[1];
    if (own) {
      const key = nameKey(own);
      if (this.ownKeys.has(key)) this.ownKeys.set(key, undefined);
      else this.ownKeys.set(key, doc);
    }
    const tf = new Map<string, number>();
    const count = (text: string, weight: number): void => {
      for (const w of words(text)) tf.set(w, (tf.get(w) ?? 0) + weight);
    };
    count(name, NAME_WEIGHT);
    for (const p of paramNames(parameters)) count(p, PARAM_WEIGHT);
    count(description, DESCRIPTION_WEIGHT);
    let length = 0;
    for (const [word, n] of tf) {
      length += n;
      const list = this.postings.get(word);
      if (list) list.push({ doc, tf: n });
      else this.postings.set(word, [{ doc, tf: n }]);
    }
    this.lengths[doc] = length;
  }
}
