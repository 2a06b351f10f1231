import { openRuntime, type RunFlags } from "../open-runtime.js";

/** Rough tokens for English text and JSON: about four characters each. */
const approxTokens = (chars: number): number => Math.ceil(chars / 4);

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
