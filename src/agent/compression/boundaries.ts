/**
 * Phase 2 (seed 004 §7.3): which messages stay verbatim. The head is the system prompt plus the
 * first `protectFirstN` messages; the tail is found walking back from the end until its token
 * budget is spent, with invariants that keep the request valid and the current task visible.
 */
import type { ChatMessage } from "../../llm/types.js";

/** Messages always kept in the tail, whatever their size. */
export const MIN_TAIL_MESSAGES = 3;
/** The tail may run this far over budget rather than cut inside a large message. */
export const TAIL_SOFT_CEILING = 1.5;

export interface Boundaries {
  /** First index that may be compressed (everything before is the protected head). */
  start: number;
  /** First index of the protected tail; [start, end) is compressed. end <= start: nothing to do. */
  end: number;
}

/** Index just past the protected head: system message (if first) plus `protectFirstN` more. */
export function headEnd(messages: readonly ChatMessage[], protectFirstN: number): number {
  const sys = messages[0]?.role === "system" ? 1 : 0;
  return Math.min(messages.length, sys + Math.max(0, protectFirstN));
}

/** Moves `i` forward past tool results so the compressed region starts on a user/assistant turn. */
export function alignForward(messages: readonly ChatMessage[], i: number): number {
  let j = i;
  while (j < messages.length && messages[j]!.role === "tool") j += 1;
  return j;
}

/**
 * Moves a tail start `i` backward so a tool-call group is never split: if `i` lands on tool
 * results, the assistant message that issued them joins the tail.
 */
export function alignBackward(messages: readonly ChatMessage[], i: number): number {
  let j = i;
  while (j > 0 && j < messages.length && messages[j]!.role === "tool") j -= 1;
  return j;
}

export function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return i;
  return -1;
}

/**
 * Where the tail starts: walk back accumulating `cost(i)` until `budget` is spent (≥ MIN_TAIL_MESSAGES
 * messages, at most TAIL_SOFT_CEILING × budget unless the minimum needs more), aligned so no tool
 * group is split, then pulled back to the latest user message when the tail stays within bounds.
 */
export function tailStart(
  messages: readonly ChatMessage[],
  budget: number,
  cost: (i: number) => number,
  floor: number,
): number {
  const n = messages.length;
  let i = n;
  let used = 0;
  while (i > floor) {
    const c = cost(i - 1);
    const count = n - i;
    if (count >= MIN_TAIL_MESSAGES && (used + c > TAIL_SOFT_CEILING * budget || used >= budget)) break;
    used += c;
    i -= 1;
  }
  i = alignBackward(messages, Math.max(i, floor));
  // The latest user message joins the tail when that keeps the tail within its soft ceiling;
  // otherwise the compressor lifts that one message out of the compressed region (it is never
  // summarised away either way).
  const lastUser = lastUserIndex(messages);
  if (lastUser >= floor && lastUser < i) {
    let total = 0;
    for (let j = lastUser; j < n; j++) total += cost(j);
    if (total <= TAIL_SOFT_CEILING * budget) i = lastUser;
  }
  return Math.max(i, floor);
}

export function findBoundaries(
  messages: readonly ChatMessage[],
  protectFirstN: number,
  tailBudget: number,
  cost: (i: number) => number,
): Boundaries {
  const start = alignForward(messages, headEnd(messages, protectFirstN));
  const end = tailStart(messages, tailBudget, cost, start);
  return { start, end };
}
