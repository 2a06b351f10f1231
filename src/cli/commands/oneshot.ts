import type { AgentEvent } from "../../agent/events.js";
import { TerminalRenderer } from "../render.js";
import { openRuntime, type RunFlags } from "../runtime.js";
import { installInterruptHandler } from "../signals.js";

export interface OneshotOptions {
  /** -z: nothing but the final answer on stdout; no progress at all. */
  quiet: boolean;
}

/**
 * Runs one prompt to completion. stdout gets the final answer and a newline; progress (chat -q) goes
 * to stderr. Exit code 0 on success, 1 on failure, 130 when interrupted.
 */
export async function runOneshot(prompt: string, flags: RunFlags, opts: OneshotOptions): Promise<number> {
  if (!prompt.trim()) {
    process.stderr.write("hermes: the prompt is empty\n");
    return 2;
  }
  const runtime = openRuntime(flags);
  if (!runtime) return 1;
  const renderer = new TerminalRenderer({
    out: process.stderr,
    status: process.stderr,
    streamText: false,
    showTools: !opts.quiet && runtime.config.display.tool_progress,
    showReasoning: !opts.quiet && runtime.config.display.show_reasoning,
  });
  const onEvent = (e: AgentEvent): void => {
    // -z keeps stdout for the answer alone; waits on a struggling provider still show on stderr.
    if (!opts.quiet || (e.type === "status" && e.kind === "retry")) renderer.handle(e);
  };
  const agent = runtime.newAgent(onEvent);
  const removeHandler = installInterruptHandler(() => agent.interrupt());
  try {
    const result = await agent.runConversation(prompt);
    renderer.close();
    if (result.status === "completed" || result.status === "budget_exhausted") {
      process.stdout.write(`${result.finalText.trim()}\n`);
      return 0;
    }
    if (result.status === "interrupted") {
      process.stderr.write("hermes: interrupted\n");
      return 130;
    }
    process.stderr.write(`hermes: ${result.error?.message ?? "the run failed"}\n`);
    return 1;
  } finally {
    removeHandler();
    await runtime.dispose();
  }
}
