import type { Agent } from "../agent/agent.js";
import type { AgentEvent } from "../agent/events.js";
import type { HermesConfig } from "../core/config.js";
import type { Logger } from "../core/log.js";
import { pricingLookup } from "../llm/models/index.js";
import type { SessionStore } from "../state/store.js";
import { generateTitle } from "./auto-title.js";
import { type RecorderInfo, SessionRecorder } from "./recorder.js";

/** What every recorder of a runtime shares. */
export interface RecordingContext {
  store: SessionStore;
  config: HermesConfig;
  home: string;
  /** The front end's directory, stored with each session. */
  cwd: string;
  logger: Logger;
}

export interface RecordOptions {
  source: string;
  resumed: boolean;
  parentSessionId?: string;
  title?: string;
  /** Name the session with the auxiliary model after its first exchange. */
  autoTitle?: boolean;
  /** Who the session belongs to (gateway chats). */
  owner?: RecorderInfo["owner"];
  /** The session's working directory when not the front end's (a chat user's own folder). */
  cwd?: string;
  /** Failures the user should see (a top-level session's front end); always logged. */
  onEvent?: (event: AgentEvent) => void;
}

/** A recorder persisting `agent`'s events from its first message on (the agent's onEvent feeds it). */
export function recordAgent(ctx: RecordingContext, agent: Agent, opts: RecordOptions): SessionRecorder {
  const { logger, config } = ctx;
  const tell = (kind: "warning" | "info", message: string): void =>
    opts.onEvent?.({ type: "status", kind, message });
  return new SessionRecorder(ctx.store, {
    sessionId: agent.sessionId,
    source: opts.source,
    model: agent.target.model,
    provider: agent.target.provider,
    cwd: opts.cwd ?? ctx.cwd,
    resumed: opts.resumed,
    messages: () => agent.messages,
    onFailure: (message) => {
      logger.warn("state.db write failed", { message });
      tell("warning", message);
    },
    onRecovered: (message) => {
      logger.info("state.db writes recovered", { message });
      tell("info", message);
    },
    pricing: pricingLookup(agent.target, { home: ctx.home }),
    ...(opts.parentSessionId ? { parentSessionId: opts.parentSessionId } : {}),
    ...(opts.title ? { title: opts.title } : {}),
    ...(opts.owner ? { owner: opts.owner } : {}),
    ...(opts.autoTitle
      ? {
          autoTitle: async (userText: string, replyText: string) => {
            const outcome = await generateTitle(userText, replyText, {
              main: agent.target,
              settings: config.auxiliary,
              customBaseUrl: config.model.base_url,
              customModel: config.model.default,
              home: ctx.home,
            });
            if (outcome.ok) return outcome.title;
            logger.warn("session title not generated", { session: agent.sessionId, error: outcome.error });
            return undefined;
          },
        }
      : {}),
  });
}
