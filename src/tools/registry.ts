/**
 * The tool registry: the root of the tool layer. It imports nothing from the project but its own
 * leaf modules (results, argument checks), so every tool module can import it without cycles. It is
 * generic over the handler context so that the context's shape (defined in `context.ts`) can
 * depend on services without the registry depending on them.
 */
import {
  errorResult,
  resultText,
  type ToolOutput,
  type ToolResult,
  toToolResult,
  withText,
} from "./result.js";
import { ArgValidator } from "./validate-args.js";

export interface ToolSchema {
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/**
 * Runs a call whose arguments passed the schema check (repaired where a model slipped). Returns a
 * string (read by the model as is; `{"error": ...}` marks a failure) or a `ToolResult`.
 */
export type ToolHandler<Ctx> = (args: Record<string, unknown>, ctx: Ctx) => Promise<ToolOutput> | ToolOutput;

export interface ToolRegistration<Ctx> {
  name: string;
  toolset: string;
  schema: ToolSchema;
  handler: ToolHandler<Ctx>;
  /** Availability probe; false or a throw hides the tool. Cached for 30 s. */
  checkFn?: () => boolean | Promise<boolean>;
  /** Env vars the tool needs (shown to users; not enforced here). */
  requiresEnv?: string[];
  emoji?: string;
  /** Results longer than this are cut with a marker. */
  maxResultChars?: number;
  /**
   * Patches applied to the schema each time definitions are built (e.g. limits from config).
   * `available` lists the tools of the same definition list that passed their checks.
   */
  dynamicSchemaOverrides?: (available: readonly string[]) => Partial<ToolSchema> | undefined;
  /** Safe to run alongside other tools in one batch. */
  parallelSafe?: boolean;
  /** Takes a `path` argument; parallel only when paths do not overlap. */
  pathScoped?: boolean;
  /** Allow replacing a tool registered by another toolset. */
  override?: boolean;
  /**
   * May be left out of requests behind the tool search bridge when the session's deferrable
   * schemas outgrow `tools.tool_search.threshold_pct` of the context window. MCP and plugin tools
   * set it (default: true for `mcp-*` toolsets, false otherwise); core tools never defer.
   */
  deferrable?: boolean;
}

export interface ToolEntry<Ctx> extends Required<Pick<ToolRegistration<Ctx>, "name" | "toolset">> {
  schema: ToolSchema;
  handler: ToolHandler<Ctx>;
  checkFn: (() => boolean | Promise<boolean>) | undefined;
  requiresEnv: string[];
  emoji: string;
  maxResultChars: number;
  dynamicSchemaOverrides: ((available: readonly string[]) => Partial<ToolSchema> | undefined) | undefined;
  parallelSafe: boolean;
  pathScoped: boolean;
  deferrable: boolean;
}

/** OpenAI-format function definition (identical to llm/types ToolDefinition, restated to stay import-free). */
export interface FunctionDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export type RegisterOutcome = { ok: true } | { ok: false; reason: string };

export const DEFAULT_MAX_RESULT_CHARS = 100_000;
export const CHECK_FN_TTL_MS = 30_000;

const isMcpToolset = (toolset: string): boolean => toolset.startsWith("mcp-");

export class ToolRegistry<Ctx> {
  private readonly tools = new Map<string, ToolEntry<Ctx>>();
  private readonly checkCache = new Map<() => boolean | Promise<boolean>, { at: number; ok: boolean }>();
  private memo: { key: string; defs: FunctionDefinition[] } | undefined;
  private gen = 0;
  private readonly validator = new ArgValidator();

  /** Monotonic counter bumped on every mutation; memoised definition lists key on it. */
  get generation(): number {
    return this.gen;
  }

  /**
   * Adds a tool. Refuses to shadow a tool owned by another toolset unless `override` is set
   * (MCP servers may replace each other's tools: that is a refresh, not a hijack).
   */
  register(reg: ToolRegistration<Ctx>): RegisterOutcome {
    const existing = this.tools.get(reg.name);
    if (existing && existing.toolset !== reg.toolset) {
      const bothMcp = isMcpToolset(existing.toolset) && isMcpToolset(reg.toolset);
      if (!bothMcp && !reg.override) {
        return {
          ok: false,
          reason: `tool '${reg.name}' already belongs to toolset '${existing.toolset}'; '${reg.toolset}' may not shadow it without override`,
        };
      }
    }
    this.tools.set(reg.name, {
      name: reg.name,
      toolset: reg.toolset,
      schema: reg.schema,
      handler: reg.handler,
      checkFn: reg.checkFn,
      requiresEnv: reg.requiresEnv ?? [],
      emoji: reg.emoji ?? "🔧",
      maxResultChars: reg.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
      dynamicSchemaOverrides: reg.dynamicSchemaOverrides,
      parallelSafe: reg.parallelSafe ?? false,
      pathScoped: reg.pathScoped ?? false,
      deferrable: reg.deferrable ?? isMcpToolset(reg.toolset),
    });
    this.bump();
    return { ok: true };
  }

  deregister(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.bump();
    return removed;
  }

  get(name: string): ToolEntry<Ctx> | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  names(): string[] {
    return [...this.tools.keys()].sort();
  }

  entries(): ToolEntry<Ctx>[] {
    return this.names().map((n) => this.tools.get(n)!);
  }

  toolsetNames(): string[] {
    return [...new Set([...this.tools.values()].map((t) => t.toolset))].sort();
  }

  toolsInToolset(toolset: string): string[] {
    return this.entries()
      .filter((t) => t.toolset === toolset)
      .map((t) => t.name);
  }

  /** Finds a registered name differing only in case or separators (models do `Read_File`, `readFile`). */
  resolveName(name: string): string | undefined {
    if (this.tools.has(name)) return name;
    const norm = (s: string): string => s.toLowerCase().replace(/[-_\s]/g, "");
    const wanted = norm(name);
    for (const key of this.tools.keys()) if (norm(key) === wanted) return key;
    return undefined;
  }

  /** Runs a tool's availability check with a 30 s cache; an exception counts as unavailable. */
  async isAvailable(name: string, now = Date.now()): Promise<boolean> {
    const entry = this.tools.get(name);
    if (!entry) return false;
    const check = entry.checkFn;
    if (!check) return true;
    const cached = this.checkCache.get(check);
    if (cached && now - cached.at < CHECK_FN_TTL_MS) return cached.ok;
    let ok: boolean;
    try {
      ok = Boolean(await check());
    } catch {
      ok = false;
    }
    this.checkCache.set(check, { at: now, ok });
    return ok;
  }

  /**
   * OpenAI-format definitions for the given names, sorted by name so prompts are byte-stable.
   * Unknown and unavailable tools are left out. Memoised on (generation, names, extraKey).
   */
  async getDefinitions(names: Iterable<string>, extraKey = ""): Promise<FunctionDefinition[]> {
    const sorted = [...new Set(names)].sort();
    const key = `${this.gen}\u0000${extraKey}\u0000${sorted.join(",")}`;
    const now = Date.now();
    const checksFresh = sorted.every((n) => {
      const fn = this.tools.get(n)?.checkFn;
      if (!fn) return true;
      const c = this.checkCache.get(fn);
      return c !== undefined && now - c.at < CHECK_FN_TTL_MS;
    });
    if (this.memo && this.memo.key === key && checksFresh) return this.memo.defs;
    const available: string[] = [];
    for (const name of sorted) {
      if (this.tools.has(name) && (await this.isAvailable(name, now))) available.push(name);
    }
    const defs: FunctionDefinition[] = [];
    for (const name of available) {
      const entry = this.tools.get(name)!;
      let schema: ToolSchema = entry.schema;
      const patch = entry.dynamicSchemaOverrides?.(available);
      if (patch) schema = { ...schema, ...patch };
      defs.push({
        type: "function",
        function: { name, description: schema.description, parameters: schema.parameters },
      });
    }
    this.memo = { key, defs };
    return defs;
  }

  /**
   * Runs a tool. Never throws: unknown tools, arguments that do not fit the schema and handler
   * failures come back as `{"error": ...}` results, and text over the tool's cap is cut with a marker.
   * Arguments are checked against the registered schema first; the handler never sees a call that
   * fails the check.
   */
  async dispatchResult(name: string, args: Record<string, unknown>, ctx: Ctx): Promise<ToolResult> {
    const entry = this.tools.get(name);
    if (!entry) return errorResult(`Unknown tool: ${name}`);
    let result: ToolResult;
    try {
      // Not awaited when already settled: the handler then starts in the caller's tick.
      let checked = this.validator.check(name, entry.schema.parameters, args, this.gen);
      if (checked instanceof Promise) checked = await checked;
      if (!checked.ok) return errorResult(checked.error);
      result = toToolResult(await entry.handler(checked.args, ctx));
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      return errorResult(`Tool execution failed: ${e.name}: ${e.message}`);
    }
    const text = resultText(result);
    const capped = capResult(text, entry.maxResultChars);
    return capped === text ? result : withText(result, capped);
  }

  /** `dispatchResult` as the text the model reads (images and details left out). */
  async dispatch(name: string, args: Record<string, unknown>, ctx: Ctx): Promise<string> {
    return resultText(await this.dispatchResult(name, args, ctx));
  }

  private bump(): void {
    this.gen += 1;
    this.memo = undefined;
  }
}

/** Cuts an over-long result, keeping head and tail, with a marker saying how much was dropped. */
export function capResult(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.7);
  const tail = Math.floor(maxChars * 0.2);
  const dropped = text.length - head - tail;
  return `${text.slice(0, head)}\n\n[... ${dropped} characters truncated (result exceeded ${maxChars} chars) ...]\n\n${text.slice(text.length - tail)}`;
}
