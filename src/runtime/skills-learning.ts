import type { Agent } from "../agent/agent.js";
import type { AgentEvent, AgentEventListener } from "../agent/events.js";
import type { HermesConfig } from "../core/config.js";
import type { Logger } from "../core/log.js";
import { callAuxiliary } from "../llm/auxiliary.js";
import type { ModelTarget } from "../llm/types.js";
import { type CompleteFn, lastTurn, reviewDue, reviewTurn } from "../skills/review.js";
import { recordSkillUse, type UsageEvent } from "../skills/usage.js";

/**
 * What the runtime does with skills as a conversation goes on: it records when skills are loaded
 * and changed (the curator's clock), and after a finished turn that took many tool calls it starts
 * the background review of the learning loop. Nothing here can fail or slow the user's turn.
 */

export interface SkillLearning {
  /**
   * Watches one top-level agent's events; `tell` reaches its front end. Usage is always recorded;
   * `review: false` skips the learning-loop review (runs made for scripts).
   */
  observe(agent: () => Agent, tell: AgentEventListener, options?: { review?: boolean }): AgentEventListener;
  /** Waits for reviews still running, at most `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
}

export interface SkillLearningOptions {
  home: string;
  config: HermesConfig;
  logger: Logger;
  /** The main model: the `skills` auxiliary task falls back to it. */
  main: ModelTarget;
  /** The side call (tests inject one); default: the `skills` task of the auxiliary client. */
  complete?: CompleteFn;
}

/** Output cap of one review answer (a skill is a page or two of markdown). */
const REVIEW_MAX_TOKENS = 4096;

const WRITE_EVENTS: Record<string, UsageEvent> = {
  create: "create",
  edit: "edit",
  patch: "patch",
  delete: "delete",
  write_file: "write_file",
  remove_file: "remove_file",
};

/** The usage a finished skills tool call stands for, if any. */
function usageOf(
  name: string,
  args: Record<string, unknown>,
): { skill: string; event: UsageEvent } | undefined {
  const skill = typeof args.name === "string" ? args.name : undefined;
  if (!skill) return undefined;
  if (name === "skill_view") return args.file_path === undefined ? { skill, event: "view" } : undefined;
  if (name === "skill_manage" && typeof args.action === "string" && args.action in WRITE_EVENTS)
    return { skill, event: WRITE_EVENTS[args.action]! };
  return undefined;
}

const failed = (result: string): boolean => /^\s*\{\s*"error"\s*:/.test(result);

/** The opening of the user message a `/<skill>` command becomes (skills/invoke.ts). */
const INVOCATION = /^\[The user invoked the skill "([a-z0-9][a-z0-9._-]*)" with \//;

export function createSkillLearning(opts: SkillLearningOptions): SkillLearning {
  const { home, config, logger } = opts;
  const running = new Set<Promise<void>>();
  const complete: CompleteFn =
    opts.complete ??
    (async (messages, signal) => {
      const r = await callAuxiliary("skills", messages, {
        main: opts.main,
        settings: config.auxiliary,
        customBaseUrl: config.model.base_url,
        customModel: config.model.default,
        home,
        maxTokens: REVIEW_MAX_TOKENS,
        temperature: 0.2,
        ...(signal ? { signal } : {}),
      });
      return r.ok ? { ok: true, text: r.text } : { ok: false, error: r.error.message };
    });

  const review = async (agent: Agent, tell: AgentEventListener): Promise<void> => {
    const outcome = await reviewTurn(lastTurn(agent.messages), {
      complete,
      skills: agent.skills,
      ...(agent.memory && agent.skills.scope()?.tools.has("memory") ? { memory: agent.memory } : {}),
      // Loaded here, not at start-up: command screening is 150 KB that a run without a review never uses.
      screens: (await import("./skill-screens.js")).skillScreens(),
    });
    if (outcome.savedSkill) recordSkillUse(home, outcome.savedSkill, "create");
    if (outcome.patchedSkill) recordSkillUse(home, outcome.patchedSkill, "patch");
    logger.info("skills review", { session: agent.sessionId, ...outcome });
    if (outcome.status) tell({ type: "status", kind: "info", message: outcome.status });
  };

  return {
    observe(agentOf, tell, options = {}) {
      const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
      let reviewing = false;
      return (e: AgentEvent) => {
        try {
          if (e.type === "message" && e.message.role === "user" && typeof e.message.content === "string") {
            const invoked = INVOCATION.exec(e.message.content);
            if (invoked) recordSkillUse(home, invoked[1]!, "invoke");
          } else if (e.type === "tool_start" && (e.name === "skill_view" || e.name === "skill_manage")) {
            calls.set(e.callId, { name: e.name, args: e.args });
          } else if (e.type === "tool_end" && calls.has(e.callId)) {
            const call = calls.get(e.callId)!;
            calls.delete(e.callId);
            const use = !e.isError && !failed(e.result) ? usageOf(call.name, call.args) : undefined;
            if (use) recordSkillUse(home, use.skill, use.event);
          } else if (
            e.type === "done" &&
            e.status === "completed" &&
            options.review !== false &&
            !reviewing
          ) {
            const agent = agentOf();
            // The review writes through the session's own tools: without skill_manage, nothing to do.
            if (!agent.skills.scope()?.tools.has("skill_manage")) return;
            if (!reviewDue(lastTurn(agent.messages), config.skills.creation_nudge_interval)) return;
            reviewing = true;
            const job = review(agent, tell)
              .catch((err: unknown) => logger.warn("skills review failed", { error: String(err) }))
              .finally(() => {
                reviewing = false;
                running.delete(job);
              });
            running.add(job);
          }
        } catch (err) {
          logger.warn("skills tracking failed", { error: String(err) });
        }
      };
    },
    async settled(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(running),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}
