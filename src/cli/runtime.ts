import { resolve } from "node:path";
import { Agent } from "../agent/agent.js";
import type { AgentEventListener } from "../agent/events.js";
import { type HermesConfig, loadConfig } from "../core/config.js";
import { loadDotEnv } from "../core/env.js";
import { ensureHermesHome, getHermesHome, type HomePaths } from "../core/home.js";
import { createLogger, type Logger } from "../core/log.js";
import { mark } from "../core/timing.js";
import { type ProviderProblem, resolveProvider } from "../llm/detect.js";
import type { ModelTarget } from "../llm/types.js";
import { registerBuiltinTools } from "../tools/builtin/index.js";
import type { HermesToolRegistry } from "../tools/context.js";
import { createLocalEnvironmentProvider } from "../tools/environments/local.js";
import type { EnvironmentProvider } from "../tools/environments/types.js";
import { ToolRegistry } from "../tools/registry.js";
import { selectTools } from "../tools/toolsets.js";
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
  newAgent(onEvent: AgentEventListener): Agent;
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
  const resolution = resolveProvider(settings, process.env, {
    cacheTtl: config.prompt_caching.cache_ttl === "1h" ? "1h" : "5m",
    timeoutMs: config.agent.api_timeout * 1000,
  });
  if (!resolution.ok) throw new NoProviderError(resolution.problem);
  const target: ModelTarget = resolution.target;
  const registry: HermesToolRegistry = new ToolRegistry();
  registerBuiltinTools(registry);
  mark("tools registered");
  const enabled = flags.toolsets ? splitList(flags.toolsets) : config.toolsets;
  const { tools, unknown } = selectTools(enabled, config.agent.disabled_toolsets, registry);
  const environments = createLocalEnvironmentProvider({
    cwd: resolve(config.terminal.cwd),
    home: paths.home,
    envPassthrough: config.terminal.env_passthrough,
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
    newAgent: (onEvent) => {
      let sessionId = "";
      const agent = new Agent({
        target,
        registry,
        toolNames: tools,
        config,
        home: paths.home,
        environments,
        platform: "cli",
        onEvent: (e) => {
          logAgentEvent(logger, sessionId, e);
          onEvent(e);
        },
      });
      sessionId = agent.sessionId;
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

/** createRuntime for commands: on a startup problem, prints a message for humans and returns undefined. */
export function openRuntime(flags: RunFlags): Runtime | undefined {
  if (flags.yolo) process.env.HERMES_YOLO_MODE = "1";
  try {
    return createRuntime(flags);
  } catch (err) {
    process.stderr.write(`${describeFatal(err)}\n`);
    return undefined;
  }
}
