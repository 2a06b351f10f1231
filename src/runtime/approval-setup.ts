import type { HermesConfig } from "../core/config.js";
import type { Logger } from "../core/log.js";
import { callAuxiliary } from "../llm/auxiliary.js";
import type { ModelTarget } from "../llm/types.js";
import { type CompleteText, createLlmJudge } from "../tools/approval/judge.js";
import { ApprovalPolicy, parseApprovalMode } from "../tools/approval/session.js";

export interface ApprovalSetupOptions {
  config: HermesConfig;
  /** config.yaml, where "always" answers are saved. */
  configPath: string;
  /** HERMES_HOME, for the auxiliary model's metadata cache. */
  home: string;
  /** The run's main model: the approval judge falls back to it (auxiliary task "approval"). */
  main: ModelTarget;
  logger?: Logger;
}

/** Output cap of one approval verdict (a short JSON object; reasoning models need headroom). */
const JUDGE_MAX_TOKENS = 1024;

/** True when HERMES_YOLO_MODE asks for yolo (read once, when the run starts). */
export const yoloFromEnv = (env: NodeJS.ProcessEnv = process.env): boolean =>
  /^(?:1|true|yes|on)$/i.test(env.HERMES_YOLO_MODE?.trim() ?? "");

/**
 * The approval policy every conversation of the process shares (each adds its own yolo, mode and
 * session answers). Smart mode asks the auxiliary "approval" model; when no model answers, the
 * judge escalates and the command goes to the user (manual behaviour).
 */
export function createApprovalPolicy(opts: ApprovalSetupOptions): ApprovalPolicy {
  const { config, logger } = opts;
  const complete: CompleteText = async (messages, signal) => {
    const result = await callAuxiliary("approval", messages, {
      main: opts.main,
      settings: config.auxiliary,
      customBaseUrl: config.model.base_url,
      customModel: config.model.default,
      home: opts.home,
      signal,
      maxTokens: JUDGE_MAX_TOKENS,
      temperature: 0,
    });
    if (!result.ok) {
      logger?.warn("approval model unavailable", { error: result.error.message });
      return undefined;
    }
    return result.text;
  };
  return new ApprovalPolicy({
    mode: parseApprovalMode(config.approvals.mode),
    timeoutSeconds: config.approvals.timeout,
    allowlist: config.command_allowlist,
    configPath: opts.configPath,
    judge: createLlmJudge(complete),
    onDecision: (event) => {
      const denied = /denied|hardline|no_one_to_ask|timeout/.test(event.outcome);
      if (denied) logger?.warn("command not approved", { ...event });
      else logger?.info("command approved", { ...event });
    },
  });
}
