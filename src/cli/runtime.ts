import { Agent } from "../agent/agent.js";
import type { ChildAgentFactory } from "../agent/delegation.js";
import type { AgentEventListener } from "../agent/events.js";
import { type HermesConfig, loadConfig } from "../core/config.js";
import { loadDotEnv } from "../core/env.js";
import { ensureHermesHome, getHermesHome, type HomePaths } from "../core/home.js";
import { createLogger, type Logger } from "../core/log.js";
import { mark } from "../core/timing.js";
import type { ProviderProblem } from "../llm/detect.js";
import { pricingLookup, refreshModelInfoInBackground } from "../llm/models/index.js";
import { buildProviderRouter, ProviderRouter, type RouterSettings } from "../llm/provider-router.js";
import type { ChatMessage, ModelTarget, ReasoningEffort } from "../llm/types.js";
import { generateTitle } from "../state/auto-title.js";
import { openStateStore } from "../state/open.js";
import { repairHistory, SessionRecorder } from "../state/recorder.js";
import type { SessionRecord, SessionStore } from "../state/store.js";
import type { ApprovalSession } from "../tools/approval/session.js";
import type { ApproveFn } from "../tools/approval/types.js";
import { registerBuiltinTools } from "../tools/builtin/index.js";
import type { ClarifyFn, HermesToolRegistry } from "../tools/context.js";
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
  /** -c: continue the latest session of this profile. */
  continue?: boolean;
  /** -r ID|TITLE: resume that stored session. */
  resume?: string;
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
  /** state.db (sessions, history, search); undefined when it could not be opened (see storeProblem). */
  sessions: SessionStore | undefined;
  /** Why state.db is unavailable: the run goes on without persistence. */
  storeProblem: string | undefined;
  /** Titles a session of this run (/title); returns an error message when it cannot. */
  setSessionTitle(sessionId: string, title: string): string | undefined;
  /** Removes the last `count` stored messages of a session of this run (/undo, /retry). */
  dropStoredMessages(sessionId: string, count: number): void;
  /**
   * A new session. `approve` asks the user about flagged commands; without it they are denied.
   * `resume` continues a stored session (its system prompt and history).
   */
  newAgent(
    onEvent: AgentEventListener,
    options?: {
      approve?: ApproveFn;
      clarify?: ClarifyFn;
      resume?: SessionRecord;
      source?: string;
      /** Name the session with the auxiliary model after its first exchange (sessions.auto_title). */
      autoTitle?: boolean;
      /** The run ends with one answer (-z, chat -q): background delegations are awaited first. */
      awaitBackground?: boolean;
      /** /branch: a new session starting from a copy of another one's conversation. */
      branch?: { parentSessionId: string; messages: readonly ChatMessage[]; title?: string };
    },
  ): Agent;
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
  registerBuiltinTools(registry, config);
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
  const opened = openStateStore(paths.stateDb);
  const sessions = "store" in opened ? opened.store : undefined;
  const storeProblem = "error" in opened ? opened.error.message : undefined;
  if (storeProblem) logger.warn("state.db unavailable", { message: storeProblem });
  mark("state opened");
  const recorders = new Map<string, SessionRecorder>();
  /**
   * A child's provider route: delegation.provider (with delegation.model) resolves a route of its
   * own, falling back to the parent's primary and then its fallback chain; otherwise the child keeps
   * the parent's target, with the key pool and fallbacks when that is the primary.
   */
  const childRoute = (wanted: ModelTarget): { target: ModelTarget; router: ProviderRouter } | undefined => {
    const d = config.delegation;
    if (d.provider && (d.provider !== wanted.provider || d.base_url)) {
      const built = buildProviderRouter({
        ...routerSettings,
        // The parent's key and endpoint belong to its provider: the child's come from the environment.
        model: {
          provider: d.provider,
          default: d.model || settings.default,
          base_url: d.base_url,
        },
        fallbacks: [
          {
            provider: target.provider,
            model: target.model,
            ...(target.baseUrl ? { base_url: target.baseUrl } : {}),
            ...(settings.api_key ? { api_key: settings.api_key } : {}),
            api_mode: target.apiMode,
          },
          ...config.fallback_providers,
        ],
      });
      if (built.ok) return { target: built.primary, router: built.router };
      logger.warn("delegation.provider unusable; children use the parent's", { provider: d.provider });
      return undefined;
    }
    if (wanted.provider === target.provider && wanted.model === target.model) {
      return { target: wanted, router: newRouter() };
    }
    return undefined;
  };
  // Subagents (delegate_task): each child is a session of its own in state.db, linked to its parent.
  const spawnChild: ChildAgentFactory = (options, meta) => {
    let recorder: SessionRecorder | undefined;
    const childId = options.sessionId ?? "";
    const routed = childRoute(options.target);
    const agent = new Agent({
      ...options,
      ...routed,
      delegation: { ...options.delegation, factory: spawnChild },
      onEvent: (e) => {
        logAgentEvent(logger, childId, e);
        recorder?.handle(e);
        options.onEvent?.(e);
      },
    });
    if (sessions) {
      recorder = new SessionRecorder(sessions, {
        sessionId: agent.sessionId,
        source: "subagent",
        model: agent.target.model,
        provider: agent.target.provider,
        cwd: process.cwd(),
        resumed: false,
        messages: () => agent.messages,
        onFailure: (message) => logger.warn("state.db write failed", { message }),
        pricing: pricingLookup(agent.target, { home: paths.home }),
        parentSessionId: meta.parentSessionId,
      });
      recorders.set(agent.sessionId, recorder);
    }
    return agent;
  };
  return {
    paths,
    config,
    sessions,
    storeProblem,
    dropStoredMessages: (sessionId, count) => recorders.get(sessionId)?.dropLast(count),
    setSessionTitle: (sessionId, title) => {
      const recorder = recorders.get(sessionId);
      if (!recorder) return storeProblem ?? "this session is not being saved";
      try {
        recorder.setTitle(title);
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
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
      let recorder: SessionRecorder | undefined;
      const resume = options?.resume;
      const branch = options?.branch;
      const history: ChatMessage[] | undefined =
        resume && sessions
          ? repairHistory(sessions.loadMessages(resume.id).map((m) => m.message))
          : undefined;
      const branchSystem = branch?.messages[0]?.role === "system" ? branch.messages[0].content : undefined;
      const agent = new Agent({
        ...(resume ? { sessionId: resume.id, history: history ?? [] } : {}),
        ...(resume?.systemPrompt ? { systemPrompt: resume.systemPrompt } : {}),
        ...(branch ? { history: branch.messages.filter((m) => m.role !== "system") } : {}),
        ...(branchSystem !== undefined ? { systemPrompt: branchSystem } : {}),
        ...(sessions
          ? {
              sessions: {
                search: (o) => sessions.search(o),
                around: (id, messageId, window) => sessions.messagesAround(id, messageId, window),
                getSession: (id) => sessions.getSession(id),
              },
            }
          : {}),
        target,
        router: newRouter(),
        registry,
        toolNames: tools,
        config,
        home: paths.home,
        environments,
        platform: "cli",
        approvals,
        delegation: { depth: 0, factory: spawnChild },
        ...(options?.approve ? { approve: options.approve } : {}),
        ...(options?.clarify ? { clarify: options.clarify } : {}),
        ...(options?.awaitBackground ? { awaitBackground: true } : {}),
        onEvent: (e) => {
          logAgentEvent(logger, sessionId, e);
          // Persist before the front end shows it: a kill after this point loses nothing shown.
          recorder?.handle(e);
          if (e.type === "compression") {
            // The conversation goes on under a new id: /title, /undo and the exit hint follow it.
            sessionId = e.sessionId;
            if (recorder) recorders.set(sessionId, recorder);
          }
          onEvent(e);
        },
      });
      sessionId = agent.sessionId;
      if (sessions) {
        recorder = new SessionRecorder(sessions, {
          sessionId,
          source: options?.source ?? "cli",
          model: target.model,
          provider: target.provider,
          cwd: process.cwd(),
          resumed: resume !== undefined,
          messages: () => agent.messages,
          onFailure: (message) => {
            logger.warn("state.db write failed", { message });
            onEvent({ type: "status", kind: "warning", message });
          },
          pricing: pricingLookup(target, { home: paths.home }),
          ...(branch ? { parentSessionId: branch.parentSessionId } : {}),
          ...(branch?.title ? { title: branch.title } : {}),
          ...(options?.autoTitle
            ? {
                autoTitle: async (userText: string, replyText: string) => {
                  const outcome = await generateTitle(userText, replyText, {
                    main: agent.target,
                    settings: config.auxiliary,
                    customBaseUrl: config.model.base_url,
                    customModel: config.model.default,
                    home: paths.home,
                  });
                  if (outcome.ok) return outcome.title;
                  logger.warn("session title not generated", { session: sessionId, error: outcome.error });
                  return undefined;
                },
              }
            : {}),
        });
        recorders.set(sessionId, recorder);
        if (branch) recorder.copyHistory(branch.messages);
      }
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
      // A title call still running gets a short while to land before the store closes.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...recorders.values()].map((r) => r.settled())),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, TITLE_WAIT_ON_EXIT_MS);
        }),
      ]);
      clearTimeout(timer);
      for (const r of recorders.values()) r.end("exit");
      sessions?.close();
      await environments.disposeAll();
      await logger.flush();
    },
  };
}

/** How long exit waits for a background title call. */
const TITLE_WAIT_ON_EXIT_MS = 5000;

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
