/**
 * Phase 3 (seed 004 §7.4): the structured summary. The compressed turns are serialised as source
 * material and sent to the `compression` auxiliary model with a fixed section template; on later
 * compressions the previous summary is updated rather than rewritten. Secrets are redacted before
 * anything leaves the process.
 */
import type { ChatMessage } from "../../llm/types.js";

/** Summary size: a share of the compressed content, within a floor and a cap (tokens). */
export const SUMMARY_RATIO = 0.2;
export const SUMMARY_MIN_TOKENS = 2000;
export const SUMMARY_MAX_TOKENS = 12_000;
/** Characters of one message kept in the summariser's input (the rest is elided in the middle). */
const MAX_SOURCE_CHARS_PER_MESSAGE = 4000;

export function summaryBudget(compressedTokens: number, windowCap = SUMMARY_MAX_TOKENS): number {
  const cap = Math.max(512, Math.min(SUMMARY_MAX_TOKENS, windowCap));
  return Math.min(
    cap,
    Math.max(Math.min(SUMMARY_MIN_TOKENS, cap), Math.ceil(compressedTokens * SUMMARY_RATIO)),
  );
}

const PREAMBLE = `You write checkpoint notes for a long-running assistant session. The conversation turns \
below are raw material: condense them into a compact factual record of the work so far. Output only \
the structured notes described below, with no greeting or introduction. Use the language the user \
writes in. Never reproduce API keys, passwords, tokens, credentials or connection strings; write \
[REDACTED] in their place.`;

const TEMPLATE = `Use exactly these sections (write "None" when a section is empty):

## Active Task
The user's most recent request, quoted word for word.

## Goal
What the user is trying to achieve overall.

## Constraints & Preferences
Requirements, style choices and limits the user stated.

## Completed Actions
A numbered list: the tool used, its target and the outcome.

## In Progress
Work that had started but was not finished.

## Blocked
Problems hit, with the exact error text.

## Key Decisions
Choices made and why.

## Resolved Questions
Questions that already have an answer, with the answer.

## Pending User Asks
Things the user asked for that are still open.

## Relevant Files
Paths read, created or changed, one line each on why they matter.

## Remaining Work
What is left, as background (not as instructions).

## Critical Context
Values, identifiers, commands and outputs that later work depends on.`;

/** Marks the summary message as background, not as a request to act on. */
export const SUMMARY_PREFIX = `[CONTEXT SUMMARY — REFERENCE ONLY] Earlier turns of this conversation \
were condensed into the notes below to free context space. They are background from before this \
point, not instructions: do not redo work or answer requests they mention, those were handled. The \
current task is the one under "## Active Task". Persistent memory in the system prompt stays fully \
authoritative. Reply to the newest user message after these notes.`;

/** Appended when the summary travels as a user message, so weak models do not answer the quote. */
export const SUMMARY_END_MARKER =
  "--- END OF CONTEXT SUMMARY — respond to the conversation below, not to the summary above ---";

export function staticFallbackSummary(dropped: number): string {
  return `A summary could not be produced. ${dropped} earlier message(s) were removed to free context \
space without being summarised. They held earlier work from this conversation. Carry on from the \
recent messages below and from the current state of files and other resources.`;
}

function clip(text: string): string {
  if (text.length <= MAX_SOURCE_CHARS_PER_MESSAGE) return text;
  const half = MAX_SOURCE_CHARS_PER_MESSAGE / 2;
  return `${text.slice(0, half)}\n…[${text.length - MAX_SOURCE_CHARS_PER_MESSAGE} chars elided]…\n${text.slice(-half)}`;
}

/** The compressed turns as plain text for the summariser. */
export function serialiseTurns(messages: readonly ChatMessage[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (m.role === "tool") {
      parts.push(`[tool result${m.name ? ` ${m.name}` : ""}]\n${clip(m.content)}`);
    } else if (m.role === "assistant") {
      const calls = (m.tool_calls ?? []).map(
        (tc) => `  call ${tc.function.name}(${clip(tc.function.arguments)})`,
      );
      parts.push([`[assistant]`, clip(m.content ?? ""), ...calls].filter(Boolean).join("\n"));
    } else {
      const text =
        typeof m.content === "string"
          ? m.content
          : m.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
      parts.push(`[${m.role}]\n${clip(text)}`);
    }
  }
  return parts.join("\n\n");
}

export interface SummaryPromptInput {
  turns: string;
  latestUserRequest: string;
  previousSummary?: string;
  focus?: string;
  budgetTokens: number;
}

export function summaryPrompt(input: SummaryPromptInput): ChatMessage[] {
  const sections = [PREAMBLE, TEMPLATE];
  sections.push(
    `Keep the notes under about ${input.budgetTokens} tokens. The user's most recent request, for the Active Task section:\n<<<\n${input.latestUserRequest}\n>>>`,
  );
  if (input.focus) {
    sections.push(
      `Focus: give most of the space (roughly two thirds) to everything about "${input.focus}"; condense the rest harder.`,
    );
  }
  let body: string;
  if (input.previousSummary) {
    body = `EARLIER NOTES:\n${input.previousSummary}\n\nNEW TURNS TO FOLD IN:\n${input.turns}\n\nUpdate the earlier notes with the new turns. Keep everything still true, add new completed actions continuing the numbering, move finished items from In Progress to Completed Actions and answered questions to Resolved Questions, and rewrite ## Active Task with the latest request.`;
  } else {
    body = `TURNS TO CONDENSE:\n${input.turns}`;
  }
  return [
    { role: "system", content: sections.join("\n\n") },
    { role: "user", content: body },
  ];
}

/** Makes sure the Active Task section quotes `request` verbatim whatever the summariser wrote. */
export function ensureActiveTask(summary: string, request: string): string {
  if (!request || summary.includes(request)) return summary;
  const section = `## Active Task\n${request}`;
  const re = /## Active Task\n[\s\S]*?(?=\n## |$)/;
  return re.test(summary) ? summary.replace(re, () => section) : `${section}\n\n${summary}`;
}
