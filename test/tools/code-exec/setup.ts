import type { InnerToolEvent } from "../../../src/agent/events.js";
import { createToolCallService } from "../../../src/agent/inner-tools.js";
import type { HermesConfig } from "../../../src/core/config-defaults.js";
import type { ToolContext } from "../../../src/tools/context.js";
import { createHarness, type ToolHarness } from "../helpers.js";

export interface CodeExecHarness extends ToolHarness {
  /** Inner calls reported while scripts ran. */
  inner: InnerToolEvent[];
  /** Runs execute_code and parses its result. */
  exec(args: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>>;
}

/** The real tool harness plus the agent's tool-call service, with `enabled` as the session's tools. */
export async function createCodeExecHarness(
  options: { enabled?: string[]; config?: (c: HermesConfig) => void } = {},
): Promise<CodeExecHarness> {
  const h = await createHarness(options.config ? { config: options.config } : {});
  const enabled = options.enabled ?? [
    "read_file",
    "write_file",
    "patch",
    "search_files",
    "terminal",
    "process",
    "execute_code",
  ];
  const inner: InnerToolEvent[] = [];
  const contextFor = (signal: AbortSignal): ToolContext => {
    const ctx: ToolContext = {
      ...h.ctx,
      signal,
      toolCalls: createToolCallService({
        registry: h.registry,
        available: () => enabled,
        ctx: () => ctx,
        emit: (e) => inner.push(e),
      }),
    };
    return ctx;
  };
  return {
    ...h,
    inner,
    async exec(args, signal) {
      const raw = await h.registry.dispatch(
        "execute_code",
        args,
        contextFor(signal ?? new AbortController().signal),
      );
      return JSON.parse(raw) as Record<string, unknown>;
    },
  };
}
