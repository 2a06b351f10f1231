import { isRecord } from "../core/is-record.js";
import type { ChatMessage } from "../llm/types.js";
import type { MemoryTarget } from "../tools/context.js";

/** What the review model is asked, how the turn is shown to it, and how its answer is read. */

/** Opening words of the review request: also how tests tell a review call from a conversation turn. */
export const REVIEW_INSTRUCTIONS = `You review a finished piece of an AI agent's work to decide whether it taught something worth keeping for later sessions.

Keep a SKILL when the turn worked out a reusable, multi-step procedure (commands, checks, pitfalls) that a later session would otherwise have to rediscover. Do not keep one-off answers, facts about this task only, or anything an existing skill already covers. If a skill listed as used in this turn proved wrong or incomplete, propose a small fix to it instead of a new skill.

Keep MEMORY entries only for durable facts about the user or their environment (preferences, tool versions, project conventions), one short sentence each. Procedures belong in skills, not memory.

Reply with one JSON object and nothing else:
{"skill": null, "memory": []}
or with a new skill:
{"skill": {"action": "create", "name": "lowercase-name", "category": "optional-category", "content": "---\\nname: lowercase-name\\ndescription: one sentence saying when to use it\\n---\\n\\n# Title\\n\\nSteps..."}, "memory": [{"target": "user", "content": "..."}]}
or with a fix to a used skill:
{"skill": {"action": "patch", "name": "used-skill", "old_string": "exact text from its SKILL.md", "new_string": "replacement"}, "memory": []}

The name matches ^[a-z0-9][a-z0-9._-]*$ and is the same in the frontmatter. Write the skill as instructions to a future agent, in plain imperative steps. Never put secrets, tokens or personal data in a skill or a memory entry.`;

const MAX_TRANSCRIPT_CHARS = 14_000;
const MAX_TOOL_RESULT_CHARS = 600;
const MAX_ARGS_CHARS = 400;
const MAX_SKILL_SOURCE_CHARS = 4_000;

const cut = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;

const textOf = (content: ChatMessage["content"]): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (p.type === "text" ? p.text : "[image]")).join(" ")
      : "";

/** Skills loaded with skill_view during the turn (the ones a fix may target). */
export function usedSkills(turn: readonly ChatMessage[]): string[] {
  const names = new Set<string>();
  for (const m of turn) {
    if (m.role !== "assistant") continue;
    for (const call of m.tool_calls ?? []) {
      if (call.function.name !== "skill_view") continue;
      try {
        const args = JSON.parse(call.function.arguments) as { name?: unknown; file_path?: unknown };
        if (typeof args.name === "string" && args.file_path === undefined) names.add(args.name);
      } catch {
        // unreadable arguments: the call did not load a skill
      }
    }
  }
  return [...names];
}

/** The turn as the review model reads it: requests, tool calls and results (trimmed), answers. */
export function transcriptOf(
  turn: readonly ChatMessage[],
  known: ReadonlyArray<{ name: string; description: string }>,
  used: ReadonlyArray<{ name: string; text: string }>,
): string {
  const lines: string[] = [];
  for (const m of turn) {
    if (m.role === "user") lines.push(`USER: ${textOf(m.content)}`);
    else if (m.role === "assistant") {
      const text = textOf(m.content).trim();
      if (text) lines.push(`ASSISTANT: ${text}`);
      for (const call of m.tool_calls ?? [])
        lines.push(`TOOL CALL ${call.function.name}(${cut(call.function.arguments, MAX_ARGS_CHARS)})`);
    } else if (m.role === "tool")
      lines.push(`RESULT ${m.name ?? ""}: ${cut(m.content, MAX_TOOL_RESULT_CHARS)}`);
  }
  let transcript = lines.join("\n");
  if (transcript.length > MAX_TRANSCRIPT_CHARS) {
    const half = MAX_TRANSCRIPT_CHARS / 2;
    transcript = `${transcript.slice(0, half)}\n[… middle of the turn left out …]\n${transcript.slice(-half)}`;
  }
  const parts = [`THE TURN\n${transcript}`];
  parts.push(
    `EXISTING SKILLS\n${known.length > 0 ? known.map((s) => `- ${s.name}: ${s.description}`).join("\n") : "(none)"}`,
  );
  for (const u of used)
    parts.push(`USED SKILL ${u.name} (its SKILL.md)\n${cut(u.text, MAX_SKILL_SOURCE_CHARS)}`);
  return parts.join("\n\n");
}

export type SkillProposal =
  | { action: "create"; name: string; category?: string; content: string }
  | { action: "patch"; name: string; old_string: string; new_string: string };

export interface ReviewProposal {
  skill: SkillProposal | null;
  memory: Array<{ target: MemoryTarget; content: string }>;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v : undefined);

function readSkill(v: unknown): SkillProposal | null {
  if (!isRecord(v)) return null;
  const name = str(v.name)?.trim();
  if (!name) return null;
  if (v.action === "create") {
    const content = str(v.content);
    if (!content) return null;
    const category = str(v.category)?.trim();
    return { action: "create", name, content, ...(category ? { category } : {}) };
  }
  if (v.action === "patch") {
    const oldString = str(v.old_string);
    if (!oldString || typeof v.new_string !== "string") return null;
    return { action: "patch", name, old_string: oldString, new_string: v.new_string };
  }
  return null;
}

/** The model's JSON answer (a fenced block or surrounding words tolerated); undefined when unreadable. */
export function parseReview(text: string): ReviewProposal | undefined {
  const unfenced = text.replace(/```(?:json)?\s*([\s\S]*?)```/i, "$1");
  const start = unfenced.indexOf("{");
  const end = unfenced.lastIndexOf("}");
  if (start === -1 || end <= start) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(unfenced.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (!isRecord(raw)) return undefined;
  const memory = Array.isArray(raw.memory)
    ? raw.memory.flatMap((m) => {
        if (!isRecord(m)) return [];
        const content = str(m.content)?.trim();
        const target: MemoryTarget = m.target === "user" ? "user" : "memory";
        return content ? [{ target, content }] : [];
      })
    : [];
  return { skill: readSkill(raw.skill), memory };
}
