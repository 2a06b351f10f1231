/**
 * A session's tool list: the toolset selection (asked once, at the first request: prompt-cache
 * rule), the definitions its requests carry, and the tool search bridge when the deferrable
 * schemas (MCP and plugin tools) would outgrow `tools.tool_search.threshold_pct` of the context
 * window. Decided once per session and again only on `reset()` (`Agent.reloadTools()`).
 */
import type { HermesConfig } from "../core/config.js";
import type { ToolDefinition } from "../llm/types.js";
import type { ToolContext } from "../tools/context.js";
import type { FunctionDefinition, ToolRegistry } from "../tools/registry.js";
import {
  BRIDGE_TOOLS,
  bridgeDefinitions,
  type DeferredTools,
  ensureBridgeTools,
  resolveBridgeCall,
  type ToolSearchService,
} from "../tools/tool-search/bridge.js";
import { ToolCatalog } from "../tools/tool-search/catalog.js";
import {
  type DeferralDecision,
  decideDeferral,
  mayDefer,
  toolSearchSettings,
} from "../tools/tool-search/plan.js";
import type { InnerToolEvent } from "./events.js";
import type { HookBus } from "./hooks.js";
import { runInnerCall } from "./inner-tools.js";

export type { DeferralDecision } from "../tools/tool-search/plan.js";

export interface SessionToolsOptions {
  registry: ToolRegistry<ToolContext>;
  /** The toolset selection, or a query on it asked at the first request. */
  source: ReadonlySet<string> | (() => ReadonlySet<string>);
  /** Selected tools this session cannot offer (clarify without a person, memory when it is off). */
  hidden: readonly string[];
  config: HermesConfig;
  /** The model's context window in tokens, when known. */
  contextLength: () => number | undefined;
  /** Where a `tool_call`'s inner call is reported. */
  emit: (e: InnerToolEvent) => void;
  /** The session's hooks, which see a `tool_call`'s inner call as any other. */
  hooks?: HookBus | undefined;
}

/** What one build decided: the request's tools, and the deferred side when the bridge is on. */
export interface ToolPlan {
  tools: ToolDefinition[];
  decision: DeferralDecision;
  deferred?: DeferredTools;
}

export class SessionTools {
  private fixed: ReadonlySet<string> | undefined;
  private built: ToolPlan | undefined;
  private callableMemo:
    | { selection: ReadonlySet<string>; plan: ToolPlan | undefined; names: Set<string> }
    | undefined;

  constructor(private readonly o: SessionToolsOptions) {}

  /** The toolset selection: asked once, at the session's first request (prompt-cache rule). */
  selection(): ReadonlySet<string> {
    const source = this.o.source;
    this.fixed ??= typeof source === "function" ? source() : source;
    return this.fixed;
  }

  /** Names a model's call may use: the selection, with the bridge exactly while it is on. */
  callable(): ReadonlySet<string> {
    const selection = this.selection();
    const m = this.callableMemo;
    if (m?.selection === selection && m.plan === this.built) return m.names;
    const names = new Set(selection);
    for (const b of BRIDGE_TOOLS) names.delete(b);
    if (this.built?.deferred) for (const b of BRIDGE_TOOLS) names.add(b);
    this.callableMemo = { selection, plan: this.built, names };
    return names;
  }

  /** The last build (undefined before the first request). */
  get plan(): ToolPlan | undefined {
    return this.built;
  }

  /** Forgets the selection: the next build asks the toolset policy again. */
  reset(): void {
    this.fixed = undefined;
  }

  /** Builds the request's tool list from the selection (and defers, when the budget says so). */
  async build(): Promise<ToolDefinition[]> {
    const { registry, hidden, config } = this.o;
    const names = [...this.selection()].filter((n) => !hidden.includes(n) && !BRIDGE_TOOLS.includes(n));
    const defs = (await registry.getDefinitions(names)) as FunctionDefinition[];
    const deferrable = defs.filter((d) => mayDefer(d.function.name, registry.get(d.function.name)));
    const settings = toolSearchSettings(config);
    const decision = decideDeferral(settings, deferrable, this.o.contextLength());
    if (!decision.active || !ensureBridgeTools(registry)) {
      this.built = { tools: defs as ToolDefinition[], decision: { ...decision, active: false } };
      return this.built.tools;
    }
    const deferredNames = new Set(deferrable.map((d) => d.function.name));
    const kept = names.filter((n) => !deferredNames.has(n));
    const catalog = new ToolCatalog(
      deferrable.map((d) => ({ definition: d.function, toolset: registry.get(d.function.name)!.toolset })),
    );
    const listed = await registry.getDefinitions([...kept, ...BRIDGE_TOOLS]);
    const direct = new Set(listed.map((d) => d.function.name).filter((n) => !BRIDGE_TOOLS.includes(n)));
    const deferred: DeferredTools = {
      catalog,
      direct,
      defaultLimit: settings.defaultLimit,
      maxLimit: settings.maxLimit,
    };
    const bridge = bridgeDefinitions(deferred);
    const tools = listed.map((d) => bridge.get(d.function.name) ?? d) as ToolDefinition[];
    this.built = { tools, decision, deferred };
    return tools;
  }

  /**
   * `ctx.toolSearch` for one request while the bridge is on: `tool_call` runs the deferred tool on
   * the path of every call (argument check, hooks, approvals, redaction), reported as an inner call.
   */
  service(ctx: () => ToolContext): ToolSearchService | undefined {
    const deferred = this.built?.deferred;
    if (!deferred) return undefined;
    const { registry, emit, hooks } = this.o;
    return {
      ...deferred,
      resolve: (args) => resolveBridgeCall(deferred, args, (n) => registry.has(n)),
      call: async (name, args) => {
        const inner = { registry, emit, hooks, ctx: ctx(), parent: "tool_call" };
        return (await runInnerCall(name, args, inner)).outcome.result;
      },
    };
  }
}
