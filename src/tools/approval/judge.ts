import type { PatternMatch } from "./types.js";

/**
 * Smart approval (approvals.mode: smart): a side model rates a flagged command. Clearly low risk
 * runs, clearly high risk is refused, anything else goes to the user. The model call is injected
 * (`CompleteText`), so this file knows nothing about providers.
 */

export type JudgeDecision = "approve" | "deny" | "escalate";

export interface JudgeVerdict {
  decision: JudgeDecision;
  reason: string;
}

export interface JudgeInput {
  command: string;
  reasons: readonly PatternMatch[];
  cwd: string;
}

/** Rates a command. Must never throw: trouble is `escalate`. */
export interface ApprovalJudge {
  assess(input: JudgeInput, signal: AbortSignal): Promise<JudgeVerdict>;
}

/** Shape-compatible with the provider layer's system/user messages. */
export interface JudgeMessage {
  role: "system" | "user";
  content: string;
}

/** One side-model call; resolves to its text, or undefined when no model could answer. */
export type CompleteText = (messages: JudgeMessage[], signal: AbortSignal) => Promise<string | undefined>;

export const JUDGE_SYSTEM_PROMPT = [
  "You review shell commands that an AI agent wants to run on a user's computer. The command matched",
  "a dangerous-command rule. Rate its risk in context and answer with one JSON object and nothing",
  'else: {"risk": "low" | "high" | "uncertain", "reason": "<one short sentence>"}.',
  "- low: clearly safe, e.g. deleting a build, cache or dependency folder (node_modules, dist,",
  "  __pycache__), or files the agent obviously created in a temporary folder.",
  "- high: clearly destructive or malicious: deletes user data or system files, wipes disks, weakens",
  "  security, leaks secrets, opens remote access, or runs code downloaded from the internet.",
  "- uncertain: anything else; the user will be asked.",
  "Never answer low for commands that touch system folders, the whole home folder, credentials,",
  "production databases or remote infrastructure.",
].join("\n");

export function judgeMessages(input: JudgeInput): JudgeMessage[] {
  const rules = input.reasons.map((r) => `- ${r.description}`).join("\n");
  return [
    { role: "system", content: JUDGE_SYSTEM_PROMPT },
    {
      role: "user",
      content: `Command:\n${input.command}\n\nWorking directory: ${input.cwd}\n\nRules it matched:\n${rules}`,
    },
  ];
}

/** Reads the model's answer: the JSON object if there is one, else a bare low/high/uncertain. */
export function parseVerdict(text: string): JudgeVerdict {
  let risk: string | undefined;
  let reason = "";
  const json = /\{[\s\S]*\}/.exec(text);
  if (json) {
    try {
      const parsed = JSON.parse(json[0]) as { risk?: unknown; reason?: unknown };
      if (typeof parsed.risk === "string") risk = parsed.risk.toLowerCase().trim();
      if (typeof parsed.reason === "string") reason = parsed.reason.trim();
    } catch {
      // fall through to the plain-word reading
    }
  }
  risk ??= /\b(low|high|uncertain)\b/i.exec(text)?.[1]?.toLowerCase();
  if (!reason) reason = text.replace(/\s+/g, " ").trim().slice(0, 200);
  if (risk === "low") return { decision: "approve", reason };
  if (risk === "high") return { decision: "deny", reason };
  return { decision: "escalate", reason: reason || "the approval model could not decide" };
}

/** A judge backed by a side model (auxiliary task "approval"). */
export function createLlmJudge(complete: CompleteText): ApprovalJudge {
  return {
    async assess(input, signal) {
      try {
        const text = await complete(judgeMessages(input), signal);
        if (text === undefined) return { decision: "escalate", reason: "no approval model is available" };
        return parseVerdict(text);
      } catch (err) {
        return {
          decision: "escalate",
          reason: `the approval model failed: ${(err as Error)?.message ?? err}`,
        };
      }
    },
  };
}
