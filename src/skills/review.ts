import type { ChatMessage } from "../llm/types.js";
import type { MemoryService, MemoryTarget } from "../tools/context.js";
import type { SkillsService } from "../tools/skills-service.js";
import { decideInstall } from "./guard/policy.js";
import { scanSkillText } from "./guard/scan.js";
import type { GuardScreens } from "./guard/types.js";
import { validateSkillName } from "./paths.js";
import { parseReview, REVIEW_INSTRUCTIONS, transcriptOf, usedSkills } from "./review-prompt.js";

/**
 * The learning loop: after a turn that took many tool calls, a side model reads the turn and may
 * keep what it taught, as a new skill, a fix to a skill that was used and proved wrong, or a few
 * memory entries. It runs in the background; whatever happens, the user's turn is untouched.
 */

/** The side model: a chat call that never throws. */
export type CompleteFn = (
  messages: ChatMessage[],
  signal?: AbortSignal,
) => Promise<{ ok: true; text: string } | { ok: false; error: string }>;

export interface ReviewOptions {
  complete: CompleteFn;
  /** The session's skills store: its writes apply the limits, the optional write scan and usage tracking. */
  skills: Pick<SkillsService, "list" | "source" | "write">;
  memory?: Pick<MemoryService, "enabled" | "apply">;
  /** Screens for the scan of a skill the review writes (see guard/). */
  screens?: GuardScreens;
  signal?: AbortSignal;
}

export interface ReviewOutcome {
  savedSkill?: string;
  patchedSkill?: string;
  memories: number;
  /** Why a proposal was not applied, or why the review failed. */
  notes: string[];
  /** The one line for the user when something was kept. */
  status?: string;
}

const MAX_MEMORIES = 3;
const MAX_MEMORY_CHARS = 500;

/** Tool calls the assistant made in a turn. */
export function countToolCalls(turn: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of turn) if (m.role === "assistant") n += m.tool_calls?.length ?? 0;
  return n;
}

/** Whether a turn with this many tool calls earns a review (`skills.creation_nudge_interval`; 0 = never). */
export const reviewDue = (turn: readonly ChatMessage[], interval: number): boolean =>
  interval > 0 && countToolCalls(turn) >= interval;

/** The messages of the last turn: from the last user message to the end. */
export function lastTurn(messages: readonly ChatMessage[]): ChatMessage[] {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return messages.slice(i);
  return [];
}

async function applySkill(
  proposal: NonNullable<ReturnType<typeof parseReview>>["skill"],
  used: readonly string[],
  opts: ReviewOptions,
  out: ReviewOutcome,
): Promise<void> {
  if (!proposal) return;
  const existing = new Set(opts.skills.list().skills.map((s) => s.name));
  if (proposal.action === "create") {
    const problem = validateSkillName(proposal.name);
    if (problem) return void out.notes.push(problem);
    if (existing.has(proposal.name)) return void out.notes.push(`skill '${proposal.name}' already exists`);
    // Nobody watches this write, so the scan always runs; a dangerous verdict has no one to ask.
    const scan = scanSkillText(proposal.content, opts.screens ? { screens: opts.screens } : {});
    if (decideInstall(scan.verdict, "agent-created").action !== "allow")
      return void out.notes.push(`skill '${proposal.name}' refused by the scan (${scan.findings[0]?.rule})`);
    const r = await opts.skills.write({
      action: "create",
      name: proposal.name,
      content: proposal.content,
      ...(proposal.category ? { category: proposal.category } : {}),
    });
    if (r.ok) out.savedSkill = proposal.name;
    else out.notes.push(r.error);
    return;
  }
  if (!used.includes(proposal.name))
    return void out.notes.push(`'${proposal.name}' was not used in this turn`);
  const src = opts.skills.source(proposal.name);
  if (!src.ok) return void out.notes.push(src.error);
  const at = src.text.indexOf(proposal.old_string);
  if (at === -1 || src.text.indexOf(proposal.old_string, at + 1) !== -1)
    return void out.notes.push(`the text to replace in '${proposal.name}' is not found exactly once`);
  const content =
    src.text.slice(0, at) + proposal.new_string + src.text.slice(at + proposal.old_string.length);
  const scan = scanSkillText(content, opts.screens ? { screens: opts.screens } : {});
  if (decideInstall(scan.verdict, "agent-created").action !== "allow")
    return void out.notes.push(`patch of '${proposal.name}' refused by the scan`);
  const r = await opts.skills.write({ action: "edit", name: proposal.name, content });
  if (r.ok) out.patchedSkill = proposal.name;
  else out.notes.push(r.error);
}

async function applyMemories(
  memories: ReadonlyArray<{ target: MemoryTarget; content: string }>,
  opts: ReviewOptions,
  out: ReviewOutcome,
): Promise<void> {
  if (!opts.memory) return;
  for (const m of memories.slice(0, MAX_MEMORIES)) {
    if (!opts.memory.enabled(m.target)) continue;
    const r = await opts.memory.apply(m.target, [
      { action: "add", content: m.content.slice(0, MAX_MEMORY_CHARS) },
    ]);
    if (r.ok) out.memories++;
    else if (r.error) out.notes.push(r.error);
  }
}

function statusLine(out: ReviewOutcome): string | undefined {
  const parts: string[] = [];
  if (out.savedSkill) parts.push(`saved skill '${out.savedSkill}'`);
  if (out.patchedSkill) parts.push(`fixed skill '${out.patchedSkill}'`);
  if (out.memories > 0) parts.push(`${out.memories} memory ${out.memories === 1 ? "entry" : "entries"}`);
  return parts.length > 0 ? `Learned from this turn: ${parts.join(", ")}.` : undefined;
}

/** Reviews one finished turn. Never throws: every failure ends up in `notes`. */
export async function reviewTurn(turn: readonly ChatMessage[], opts: ReviewOptions): Promise<ReviewOutcome> {
  const out: ReviewOutcome = { memories: 0, notes: [] };
  try {
    const used = usedSkills(turn);
    const known = opts.skills.list().skills;
    const usedSources = used.flatMap((name) => {
      const s = opts.skills.source(name);
      return s.ok ? [{ name, text: s.text }] : [];
    });
    const messages: ChatMessage[] = [
      { role: "system", content: REVIEW_INSTRUCTIONS },
      { role: "user", content: transcriptOf(turn, known, usedSources) },
    ];
    const answer = await opts.complete(messages, opts.signal);
    if (!answer.ok) {
      out.notes.push(`review model unavailable: ${answer.error}`);
      return out;
    }
    const proposal = parseReview(answer.text);
    if (!proposal) {
      out.notes.push("the review answer was not the expected JSON");
      return out;
    }
    await applySkill(proposal.skill, used, opts, out);
    await applyMemories(proposal.memory, opts, out);
    const status = statusLine(out);
    if (status) out.status = status;
  } catch (err) {
    out.notes.push(`review failed: ${(err as Error).message}`);
  }
  return out;
}
