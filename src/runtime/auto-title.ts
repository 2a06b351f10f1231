/**
 * Session titles written by the auxiliary model after the first exchange. The call runs in the
 * background; a failure only means the session stays untitled (the user can still /title it).
 */
import { type AuxiliaryCallOptions, callAuxiliary } from "../llm/auxiliary.js";
import type { ChatMessage } from "../llm/types.js";

/** Opening words of the title request: also how tests tell a title call from a conversation turn. */
export const TITLE_INSTRUCTION =
  "You give short names to conversations. Reply with a title of at most six words that says what the user wants, in the user's language, with no quotes, no trailing period and nothing else.";

const MAX_TITLE_CHARS = 60;
const MAX_EXCERPT_CHARS = 1500;

const excerpt = (text: string): string =>
  text.length > MAX_EXCERPT_CHARS ? `${text.slice(0, MAX_EXCERPT_CHARS)}…` : text;

/** The side-call messages for a first exchange. */
export function titleMessages(userText: string, replyText: string): ChatMessage[] {
  return [
    { role: "system", content: TITLE_INSTRUCTION },
    {
      role: "user",
      content: `User:\n${excerpt(userText.trim())}\n\nAssistant:\n${excerpt(replyText.trim())}\n\nTitle:`,
    },
  ];
}

/** The model's answer made into a title: one line, no quotes or label, bounded; undefined if empty. */
export function cleanTitle(raw: string): string | undefined {
  const withoutThinking = raw.replace(/<think>[\s\S]*?<\/think>/gi, "");
  const line = withoutThinking
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (!line) return undefined;
  let t = line
    .replace(/^(#+\s*)?(title\s*:\s*)/i, "")
    .replace(/^["'“”‘’`*_]+|["'“”‘’`*_]+$/g, "")
    .replace(/[.。]+$/, "")
    .replace(/\s+/g, " ")
    .trim();
  if ([...t].length > MAX_TITLE_CHARS)
    t = `${[...t]
      .slice(0, MAX_TITLE_CHARS - 1)
      .join("")
      .trimEnd()}…`;
  return t || undefined;
}

export type TitleOutcome = { ok: true; title: string } | { ok: false; error: string };

/** Asks the `title_generation` auxiliary model for a title. Never throws. */
export async function generateTitle(
  userText: string,
  replyText: string,
  opts: AuxiliaryCallOptions,
): Promise<TitleOutcome> {
  if (!userText.trim()) return { ok: false, error: "no user message to name the session after" };
  const result = await callAuxiliary("title_generation", titleMessages(userText, replyText), {
    maxTokens: 40,
    temperature: 0.2,
    ...opts,
  });
  if (!result.ok) return { ok: false, error: result.error.message };
  const title = cleanTitle(result.text);
  return title ? { ok: true, title } : { ok: false, error: "the model returned an empty title" };
}

/**
 * Whether a run names its sessions: `chat` (the default) only for the interactive chat on a
 * terminal, `always` for one-shots and piped input too, `off` never. One-shots skip it by default:
 * the process would have to wait for the side call after printing the answer.
 */
export function autoTitleEnabled(mode: string, interactiveChat: boolean): boolean {
  if (mode === "always") return true;
  if (mode === "chat") return interactiveChat;
  return false;
}
