import type { HermesToolRegistry, ToolContext } from "../context.js";
import { toolError, toolResult } from "./util.js";

export const MAX_CLARIFY_CHOICES = 4;

export const CLARIFY_SCHEMA = {
  description:
    "Ask the user and wait: only when the ambiguity changes what you would do, or before something " +
    "hard to undo; otherwise choose sensibly and say so. choices: up to 4 likely answers (the user " +
    "may write another).",
  parameters: {
    type: "object",
    properties: {
      question: { type: "string" },
      // The description says how many; extra choices are dropped.
      choices: { type: "array", items: { type: "string" } },
    },
    required: ["question"],
  },
};

export async function clarifyTool(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  if (!ctx.clarify) {
    return toolError(
      "Nobody can answer questions in this session. Decide yourself and state your assumption.",
    );
  }
  const question = typeof args.question === "string" ? args.question.trim() : "";
  if (!question) return toolError("question is required.");
  const choices = (Array.isArray(args.choices) ? args.choices : [])
    .filter((c): c is string => typeof c === "string" && c.trim() !== "")
    .map((c) => c.trim())
    .slice(0, MAX_CLARIFY_CHOICES);
  const timeoutS = ctx.config.agent.clarify_timeout;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(), timeoutS * 1000);
  try {
    const answer = await ctx.clarify({ question, choices, signal: controller.signal });
    if (answer === undefined || answer.trim() === "") {
      return toolResult({
        answered: false,
        note: ctx.signal.aborted
          ? "The user interrupted instead of answering."
          : `No answer within ${timeoutS} s. Continue with your best judgement and state the assumption.`,
      });
    }
    return toolResult({ answered: true, question, answer: answer.trim() });
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
}

export function registerClarifyTool(registry: HermesToolRegistry): void {
  registry.register({
    name: "clarify",
    toolset: "clarify",
    schema: CLARIFY_SCHEMA,
    handler: clarifyTool,
    emoji: "❓",
  });
}
