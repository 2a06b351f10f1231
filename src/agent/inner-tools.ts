import type { ToolCallService, ToolContext } from "../tools/context.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { InnerToolEvent } from "./events.js";
import { dispatchTool, looksLikeError } from "./tool-runner.js";

export interface InnerToolOptions {
  registry: ToolRegistry<ToolContext>;
  /** The session's exposed tool names (read on each call: the list is built lazily). */
  available: () => string[];
  /** The context of the calling tool; inner calls share its task id, environment and approvals. */
  ctx: () => ToolContext;
  emit: (event: InnerToolEvent) => void;
}

/**
 * Tool calls made by a tool on the model's behalf (execute_code): the same registry dispatch and
 * secret redaction as the model's own calls, reported as `inner_tool` events only.
 */
export function createToolCallService(opts: InnerToolOptions): ToolCallService {
  return {
    available: () => opts.available(),
    async call(name, args, { parent, signal }) {
      const base = opts.ctx();
      const ctx: ToolContext = signal ? { ...base, signal: AbortSignal.any([base.signal, signal]) } : base;
      const started = performance.now();
      const content = await dispatchTool(opts.registry, name, args, ctx);
      opts.emit({
        type: "inner_tool",
        parent,
        name,
        args,
        result: content,
        isError: looksLikeError(content),
        durationMs: performance.now() - started,
      });
      return content;
    },
  };
}
