import { Agent } from "../agent/agent.js";
import type { AgentEventListener } from "../agent/events.js";
import { type HermesConfig, loadConfig } from "../core/config.js";
import { loadDotEnv } from "../core/env.js";
import { ensureHermesHome, getHermesHome, type HomePaths } from "../core/home.js";
import { createLogger, type Logger } from "../core/log.js";
import { mark } from "../core/timing.js";
import type { ProviderProblem } from "../llm/detect.js";
import { refreshModelInfoInBackground } from "../llm/models/index.js";
import { buildProviderRouter, ProviderRouter, type RouterSettings } from "../llm/provider-router.js";
import type { ModelTarget, ReasoningEffort } from "../llm/types.js";
import type { ApprovalSession } from "../tools/approval/session.js";
import type { ApproveFn } from "../tools/approval/types.js";
import { registerBuiltinTools } from "../tools/builtin/index.js";
import type { HermesToolRegistry } from "../tools/context.js";
import { createEnvironmentProvider } from "../tools/environments/factory.js";
import type { EnvironmentProvider } from "../tools/environments/types.js";
import { ToolRegistry } from "../tools/registry.js";
import { selectTools } from "../tools/toolsets.js";
import { createApprovalSession, yoloFromEnv } from "./approval-setup.js";
import { describeFatal } from "./errors.js";
import { logAgentEvent } from "./event-log.js";

/** Flags shared by every command that runs the agent. */
export interface RunFlags {
  model?: string;
  provider?: string;
  toolsets?: string;
  yolo?: boolean;
}

export interface Runtime {
  paths: HomePaths;
  config: HermesConfig;
  configWarnings: string[];
  target: ModelTarget;
  registry: HermesToolRegistry;
  toolNames: Set<string>;
  unknownToolsets: string[];
  environments: EnvironmentProvider;
  logger: Logger;
  /** Dangerous-command approval state of this run (yolo lives here; /yolo toggles it). */
  approvals: ApprovalSession;
  /** A new session. `approve` asks the user about flagged commands; without it they are denied. */
  newAgent(onEvent: AgentEventListener, options?: { approve?: ApproveFn }): Agent;
  dispose(): Promise<void>;
}

/** Raised when no provider can be used; carries what the user can do about it. */
export class NoProviderError extends Error {
  constructor(readonly problem: ProviderProblem) {
    super("No usable model provider");
    this.name = "NoProviderError";
  }
}

const splitList = (s: string): string[] =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** Loads home, .env and config, resolves the provider and builds the tool registry. Throws ConfigError / NoProviderError. */
export function createRuntime(flags: RunFlags): Runtime {
  const paths = ensureHermesHome(getHermesHome());
  mark("home ready");
  const logger = createLogger(paths.home);
  loadDotEnv(paths.env);
  const { config, warnings } = loadConfig(paths.config);
  mark("config loaded");
  const settings = { ...config.model };
  if (flags.model) settings.default = flags.model;
  if (flags.provider) settings.provider = flags.provider;
  const routerSettings: RouterSettings = {
    model: settings,
    fallbacks: config.fallback_providers,
    strategies: config.credential_pool_strategies,
    env: process.env,
    home: paths.home,
    resolve: {
      cacheTtl: config.prompt_caching.cache_ttl === "1h" ? "1h" : "5m",
      timeoutMs: config.agent.api_timeout * 1000,
      ...(isReasoningEffort(config.agent.reasoning_effort)
        ? { reasoningEffort: config.agent.reasoning_effort }
        : {}),
    },
    onWarning: (message) => {
      logger.warn("provider setup", { message });
      if (!warnings.includes(message)) warnings.push(message);
    },
  };
  const resolution = buildProviderRouter(routerSettings);
  if (!resolution.ok) throw new NoProviderError(resolution.problem);
  const target: ModelTarget = resolution.primary;
  // Each agent (session) gets its own router: which route and key are in use is per-session state.
  let spareRouter: ProviderRouter | undefined = resolution.router;
  const newRouter = (): ProviderRouter => {
    const fresh = spareRouter ?? buildProviderRouter(routerSettings);
    spareRouter = undefined;
    if (fresh instanceof ProviderRouter) return fresh;
    if (!fresh.ok) throw new NoProviderError(fresh.problem);
    return fresh.router;
  };
  const registry: HermesToolRegistry = new ToolRegistry();
  registerBuiltinTools(registry);
  mark("tools registered");
  const enabled = flags.toolsets ? splitList(flags.toolsets) : config.toolsets;
  const { tools, unknown } = selectTools(enabled, config.agent.disabled_toolsets, registry);
  const environments = createEnvironmentProvider(config, { home: paths.home, cwd: process.cwd() });
  const approvals = createApprovalSession({
    config,
    configPath: paths.config,
    home: paths.home,
    main: target,
    yolo: flags.yolo === true || yoloFromEnv(),
    logger,
  });
  return {
    paths,
    config,
    configWarnings: warnings,
    target,
    registry,
    toolNames: tools,
    unknownToolsets: unknown,
    environments,
    logger,
    approvals,
    newAgent: (onEvent, options) => {
      let sessionId = "";
      const agent = new Agent({
        target,
        router: newRouter(),
        registry,
        toolNames: tools,
        config,
        home: paths.home,
        environments,
        platform: "cli",
        approvals,
        ...(options?.approve ? { approve: options.approve } : {}),
        onEvent: (e) => {
          logAgentEvent(logger, sessionId, e);
          onEvent(e);
        },
      });
      sessionId = agent.sessionId;
      // Context sizes and prices of custom servers and OpenRouter, for later lookups; once per
      // process per endpoint, in the background (seed 004 §20).
      void refreshModelInfoInBackground(target, { home: paths.home });
      logger.info("session start", {
        session: sessionId,
        model: target.model,
        provider: target.provider,
        apiMode: target.apiMode,
      });
      return agent;
    },
    dispose: async () => {
      await environments.disposeAll();
      await logger.flush();
    },
  };
}

const isReasoningEffort = (v: string): v is ReasoningEffort => v === "low" || v === "medium" || v === "high";

/** createRuntime for commands: on a startup problem, prints a message for humans and returns undefined. */
export function openRuntime(flags: RunFlags): Runtime | undefined {
  try {
    return createRuntime(flags);
  } catch (err) {
    process.stderr.write(`${describeFatal(err)}\n`);
    return undefined;
  }
}
