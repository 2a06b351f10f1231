/**
 * System prompt texts for delegated subagents (seed 004 §11.2b): a focused prompt built around one
 * goal, plus an addendum for orchestrators that may spawn their own workers.
 */

export interface SubagentPromptInput {
  goal: string;
  context?: string;
  /** The working directory the child shares with its parent. */
  workspace: string;
  role: "leaf" | "orchestrator";
  /** This child's depth in the delegation tree (1 = child of the top-level agent). */
  depth: number;
  maxSpawnDepth: number;
}

/** Marker at the start of every subagent system prompt (front ends and tests recognise children by it). */
export const SUBAGENT_PROMPT_HEAD =
  "You are a subagent: another agent handed you one task to carry out on its behalf.";

export function buildSubagentPrompt(input: SubagentPromptInput): string {
  const context = input.context?.trim() || "(none given: everything you know is in the task above)";
  const parts = [
    SUBAGENT_PROMPT_HEAD,
    `## Your task\n${input.goal.trim()}`,
    `## Context from the agent that delegated this\n${context}`,
    `## Working directory\n${input.workspace}\nRun commands and resolve relative file paths here unless the task names another location.`,
    [
      "## How to work",
      "- Use the tools you have to finish the task yourself; nobody is available to answer questions.",
      "- Do not guess where a repository or project lives (such as /workspace): when no path is given,",
      "  look for it before running commands that depend on it.",
      "- Stay on this task; do not start unrelated work.",
      ...(input.role === "leaf"
        ? ["- You cannot hand any part of it to further subagents: do it yourself."]
        : []),
    ].join("\n"),
    [
      "## Your final answer",
      "Your last message is handed back to the delegating agent as your report, and it sees nothing else",
      "of your work. Keep it short and concrete:",
      "- what you did, and what you found or achieved;",
      "- every file you created or changed (full paths);",
      "- anything that failed or is still open.",
    ].join("\n"),
  ];
  if (input.role === "orchestrator") parts.push(orchestratorAddendum(input.depth, input.maxSpawnDepth));
  return parts.join("\n\n");
}

function orchestratorAddendum(depth: number, maxSpawnDepth: number): string {
  const floor =
    depth + 1 >= maxSpawnDepth
      ? "Workers you start sit at the bottom of the tree: they cannot delegate again."
      : "Workers you start may be orchestrators themselves only if their own goal really splits further.";
  return [
    "## You may delegate (orchestrator)",
    "The `delegate_task` tool is available to you: it starts workers with fresh context that run in parallel.",
    "Delegate when the task splits into two or more independent parts, or when one part would fill your",
    "context with intermediate output. Do the work yourself when it takes only a step or two, and never",
    "hand your whole task to a single worker unchanged.",
    "You own the final report: combine what your workers return into one answer for the agent above you.",
    `You are at depth ${depth}; the tree is limited to depth ${maxSpawnDepth}. ${floor}`,
  ].join("\n");
}
