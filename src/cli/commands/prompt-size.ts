import type { DeferralDecision } from "../../agent/session-tools.js";
import { openRuntime, type RunFlags } from "../open-runtime.js";

/** Rough tokens for English text and JSON: about four characters each. */
const approxTokens = (chars: number): number => Math.ceil(chars / 4);

const n = (x: number): string => x.toLocaleString("en-US");

/** Whether MCP and plugin schemas sit behind the tool search bridge, and why. */
export function toolSearchLine(d: DeferralDecision | undefined): string {
  if (!d || d.deferrableTools === 0) return "Tool search: not needed (no MCP or plugin tools)";
  const what = `${d.deferrableTools} MCP/plugin tool${d.deferrableTools === 1 ? "" : "s"} (~${n(d.deferrableTokens)} tokens)`;
  const budget = `${d.thresholdPct}% of the ${n(d.contextLength)}-token context is ${n(d.thresholdTokens)}`;
  if (d.active)
    return `Tool search: on (${d.mode}): ${what} behind tool_search, tool_describe and tool_call; ${budget}`;
  if (d.mode === "off") return `Tool search: off (tools.tool_search.enabled): ${what} listed in full`;
  return `Tool search: not needed: ${what} listed in full; ${budget}`;
}

/**
 * Prints what every request pays before the conversation starts: the system prompt and each tool
 * schema, in characters and approximate tokens, largest first.
 */
export async function runPromptSize(flags: RunFlags): Promise<number> {
  const runtime = await openRuntime(flags);
  if (!runtime) return 1;
  try {
    const agent = runtime.newAgent(() => {});
    const { systemPrompt, tools, layers } = await agent.prepareSession();
    const rows = tools
      .map((t) => ({ name: t.function.name, chars: JSON.stringify(t).length }))
      .sort((a, b) => b.chars - a.chars);
    const toolChars = rows.reduce((sum, r) => sum + r.chars, 0);
    const line = (label: string, chars: number): string =>
      `  ${label.padEnd(24)} ${String(chars).padStart(7)} chars  ~${String(approxTokens(chars)).padStart(6)} tokens`;
    const out = [
      `Fixed cost of every request (model ${runtime.target.model}):`,
      line("system prompt", systemPrompt.length),
      line(`tool schemas (${rows.length})`, toolChars),
      line("total", systemPrompt.length + toolChars),
      toolSearchLine(agent.toolSearch),
      "",
      "System prompt layers:",
      ...(layers ?? []).map((l) => line(l.name, l.text.length)),
      "",
      "Tool schemas:",
      ...rows.map((r) => line(r.name, r.chars)),
    ];
    process.stdout.write(`${out.join("\n")}\n`);
    return 0;
  } finally {
    await runtime.dispose();
  }
}
