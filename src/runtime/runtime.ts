import { Agent } from "../agent/agent.js";
import type { ChildAgentFactory } from "../agent/delegation.js";
import type { AgentEventListener } from "../agent/events.js";
import { type HermesConfig, loadConfig } from "../core/config.js";
import { loadDotEnv } from "../core/env.js";
import { ensureHermesHome, getHermesHome, type HomePaths } from "../core/home.js";
import { createLogger, type Logger } from "../core/log.js";
import { mark } from "../core/timing.js";
import { refreshModelInfoInBackground } from "../llm/models/index.js";
import type { ChatMessage, ModelTarget } from "../llm/types.js";
import { openStateStore } from "../state/open.js";
import type { SessionRecord, StateStore } from "../state/store.js";
import { type ApprovalPolicy, ApprovalSession } from "../tools/approval/session.js";
import type { ApprovalMode, ApproveFn } from "../tools/approval/types.js";
import type { BrowserManager } from "../tools/builtin/browser/index.js";
import { registerBuiltinTools } from "../tools/builtin/index.js";
import type { ClarifyFn, HermesToolRegistry, SessionSearchService, UserScope } from "../tools/context.js";
import { createEnvironmentProvider } from "../tools/environments/factory.js";
import type { EnvironmentProvider } from "../tools/environments/types.js";
import { reapOrphans } from "../tools/process/reap.js";
import { ToolRegistry } from "../tools/registry.js";
import { createToolSelector, type ToolSelection } from "../tools/toolsets.js";
import { createApprovalPolicy, yoloFromEnv } from "./approval-setup.js";
import { createBrowserService, withBrowser } from "./browser-setup.js";
import { logAgentEvent } from "./event-log.js";
import { storedLineage } from "./lineage.js";
import { type LiveSession, LiveSessions } from "./live-sessions.js";
import { createMcpRuntime, type McpRuntime, withMcpToolsets } from "./mcp.js";
import { type PluginRuntime, setupPlugins } from "./plugins.js";
import { setupProviders } from "./providers.js";
import { repairHistory } from "./recorder.js";
import { type RecordingContext, recordAgent } from "./recording.js";
import { sessionSearchService } from "./session-search-scope.js";
import { createSkillLearning } from "./skills-learning.js";
import { persistenceRedactor } from "./state-store.js";
import { type ChatUser, UserScopes } from "./user-scope.js";
import { createVisionService } from "./vision-setup.js";

export { NoProviderError } from "./providers.js";
export type { ChatUser } from "./user-scope.js";

/** How one process runs agents; every field has a default, so a front end passes only its own. */
export interface RuntimeOptions {
  /** HERMES_HOME; default: $HERMES_HOME or ~/.hermes. */
  home?: string;
  /** The directory the front end works in (relative terminal.cwd, context files, stored with sessions). */
  cwd?: string;
  /** The platform sessions run on unless newAgent says otherwise (cli, telegram, cron, ...). */
  platform?: string;
  /** Overrides of model.default / model.provider (--model, --provider). */
  model?: string;
  provider?: string;
  /** Toolsets instead of config's `toolsets` (a list, or comma-separated as --toolsets). */
  toolsets?: string | readonly string[];
  /** New sessions start in yolo (--yolo); HERMES_YOLO_MODE does the same. */
  yolo?: boolean;
  /** Where keys, HERMES_YOLO_MODE and provider settings are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Hermes's version, as MCP servers are told it. */
  version?: string;
}

export interface NewAgentOptions {
  /** Asks the user about flagged commands; without it they are denied. */
  approve?: ApproveFn;
  clarify?: ClarifyFn;
  /** Continues a stored session (its system prompt, history and conversation id). */
  resume?: SessionRecord;
  /** The session's source in state.db; default: its platform. */
  source?: string;
  /** cli, telegram, ...; default: the runtime's platform. */
  platform?: string;
  /** Name the session with the auxiliary model after its first exchange (sessions.auto_title). */
  autoTitle?: boolean;
  /** The run ends with one answer (-z, chat -q): background delegations are awaited first. */
  awaitBackground?: boolean;
  /** Review long turns in the background (skills.creation_nudge_interval); default on. */
  learn?: boolean;
  /** /branch: a new session starting from a copy of another one's conversation. */
  branch?: { parentSessionId: string; messages: readonly ChatMessage[]; title?: string };
  /** This conversation's approvals.mode (default: config's). */
  approvalMode?: ApprovalMode;
  /** This conversation starts in yolo (default: the runtime's --yolo). */
  yolo?: boolean;
  /** Toolsets of this conversation instead of the runtime's (a platform's `platform_toolsets`). */
  toolsets?: readonly string[];
  /**
   * Earlier turns this conversation starts from (an API request's messages; no system message).
   * With `resume`: the conversation held in memory instead of the stored one, which is a redacted
   * copy of what the caller sent (the caller has stored it).
   */
  history?: readonly ChatMessage[];
  /**
   * Who the session belongs to (gateway chats): stored with it; its session_search sees only this
   * user's sessions, and it works in the user's scope (folder, memory, processes; see user-scope.ts).
   */
  owner?: SessionOwner;
  /** The platform the owner's scope is kept under when not the session's (the API server's named keys: "api"). */
  ownerPlatform?: string;
  /** Told when a background process or delegation left a notice for the model (see Agent.pendingNotices). */
  onNotice?: () => void;
}

/** The chat a gateway session belongs to. */
export interface SessionOwner {
  userId: string;
  chatId?: string;
  /** The gateway's session key (agent:main:<platform>:...). */
  sessionKey?: string;
}

export interface Runtime {
  paths: HomePaths;
  config: HermesConfig;
  configWarnings: string[];
  target: ModelTarget;
  registry: HermesToolRegistry;
  /** The toolset policy's answer now; each session fixes its own list at its first request. */
  readonly toolNames: ReadonlySet<string>;
  unknownToolsets: string[];
  environments: EnvironmentProvider;
  /** The scope of a chat user's sessions (their folder, memory and processes); no user: the profile owner's. */
  scopeOf(user?: ChatUser): UserScope;
  /** The browser tools' Chromium (or attached Chrome): /browser connect, disconnect and status. */
  browser: BrowserManager;
  logger: Logger;
  /** What every session shares of approvals (allowlist, judge); each one's yolo and mode are `agent.approvals`. */
  approvals: ApprovalPolicy;
  /** state.db (sessions, history, search); undefined when it could not be opened (see storeProblem). */
  sessions: StateStore | undefined;
  /** Why state.db is unavailable: the run goes on without persistence. */
  storeProblem: string | undefined;
  /** Titles an open session of this run (/title); returns an error message when it cannot. */
  setSessionTitle(sessionId: string, title: string): string | undefined;
  /** Removes the last `count` stored messages of an open session of this run (/undo, /retry). */
  dropStoredMessages(sessionId: string, count: number): void;
  /** Conversations whose agents have not closed yet, subagents included. */
  openSessionCount(): number;
  /** A new session; `agent.close()` ends it (dispose closes those still open). */
  newAgent(onEvent: AgentEventListener, options?: NewAgentOptions): Agent;
  /** MCP servers of config.yaml: connected in the background; their status reaches open sessions' listeners. */
  mcp: McpRuntime;
  /** Enabled plugins (their commands, for front ends) and the hook bus every agent fires. */
  plugins: PluginRuntime;
  /** Closes every open session (waiting for background subagents), then the store and environments. Once. */
  dispose(): Promise<void>;
}

/**
 * A top-level session: its first request waits for MCP discovery (at most mcp_discovery_timeout
 * from start-up), so the tools of every server that answered by then are in it.
 */
class McpAwareAgent extends Agent {
  constructor(
    private readonly mcp: McpRuntime,
    opts: ConstructorParameters<typeof Agent>[0],
  ) {
    super(opts);
  }

  override async prepareSession(): ReturnType<Agent["prepareSession"]> {
    await this.mcp.ready();
    return super.prepareSession();
  }
}

/** How long exit waits for a background title call. */
const TITLE_WAIT_ON_EXIT_MS = 5000;
/** How long exit waits for a learning-loop review still running. */
const REVIEW_WAIT_ON_EXIT_MS = 20_000;

const toolsetList = (t: string | readonly string[]): string[] =>
  (typeof t === "string" ? t.split(",") : [...t]).map((x) => x.trim()).filter(Boolean);

/** Loads home, .env and config, resolves the provider and builds the tool registry. Throws ConfigError / NoProviderError. */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const platform = options.platform ?? "cli";
  const paths = ensureHermesHome(options.home ?? getHermesHome());
  mark("home ready");
  loadDotEnv(paths.env);
  const { config, warnings } = loadConfig(paths.config);
  const redact = persistenceRedactor(config, paths.home);
  const logger = createLogger(paths.home, "info", "agent.log", redact ? { redact } : {});
  mark("config loaded");
  const providers = setupProviders({
    config,
    home: paths.home,
    env,
    logger,
    warnings,
    ...(options.model ? { model: options.model } : {}),
    ...(options.provider ? { provider: options.provider } : {}),
  });
  const { target } = providers;
  const registry: HermesToolRegistry = new ToolRegistry();
  // Chromium starts with the first browser call; a task's context closes with its environment.
  const browser = createBrowserService({ config, home: paths.home, main: target });
  const vision = createVisionService({ config, home: paths.home, main: target });
  registerBuiltinTools(registry, config, { browser, vision });
  mark("tools registered");
  // Enabled plugins' tools and every hook (plugins' and config.yaml's); no plugin code runs here.
  const plugins = setupPlugins({ config, home: paths.home, cwd, env, registry, logger, warnings });
  mark("plugins read");
  const enabled = options.toolsets ? toolsetList(options.toolsets) : config.toolsets;
  const disabled = config.agent.disabled_toolsets;
  // A query, not a snapshot: tools registered later (MCP, plugins) reach the sessions started after.
  const selectors = new Map<string, () => ToolSelection>();
  const selectorFor = (on: readonly string[]): (() => ToolSelection) => {
    const key = on.join(",");
    let select = selectors.get(key);
    if (!select) {
      select = plugins.withToolsets(
        withMcpToolsets(createToolSelector([...on], disabled, registry), registry, [...on], disabled),
        [...on],
        disabled,
      );
      selectors.set(key, select);
    }
    return select;
  };
  const selectTools = selectorFor(enabled);
  // The front ends' listeners of open top-level sessions: where MCP status lines go.
  const statusListeners = new Set<AgentEventListener>();
  const mcp = createMcpRuntime({
    config,
    configPath: paths.config,
    registry,
    env,
    logDir: paths.logs,
    logger,
    clientVersion: options.version ?? "unknown",
    onStatus: (e) => {
      for (const listener of statusListeners) listener(e);
    },
  });
  const unknownToolsets = selectTools().unknown;
  const environments = withBrowser(createEnvironmentProvider(config, { home: paths.home, cwd }), browser);
  // A chat user's sessions start in their own folder: terminal.cwd is the owner's.
  const userConfig = { ...config, terminal: { ...config.terminal, cwd: "." } };
  const scopes = new UserScopes({
    config,
    home: paths.home,
    cwd,
    environments,
    environmentsIn: (workdir) =>
      withBrowser(createEnvironmentProvider(userConfig, { home: paths.home, cwd: workdir }), browser),
  });
  // Background processes a Hermes killed outright left running end now (not those started to survive it).
  const reaping = reapOrphans(paths.home).then((reaped) => {
    if (reaped.length > 0)
      logger.info("ended orphaned background processes", { ids: reaped.map((r) => r.id).join(",") });
  });
  // Chat users answer approvals on their phone: the gateway waits approvals.gateway_timeout for them.
  const approvalTimeout =
    platform === "gateway" ? config.approvals.gateway_timeout : config.approvals.timeout;
  const approvals = createApprovalPolicy({
    config: { ...config, approvals: { ...config.approvals, timeout: approvalTimeout } },
    configPath: paths.config,
    home: paths.home,
    main: target,
    logger,
  });
  const yolo = options.yolo === true || yoloFromEnv(env);
  const opened = openStateStore(paths.stateDb, redact ? { redact } : {});
  const sessions = "store" in opened ? opened.store : undefined;
  const storeProblem = "error" in opened ? opened.error.message : undefined;
  if (storeProblem) logger.warn("state.db unavailable", { message: storeProblem });
  mark("state opened");
  const recording: RecordingContext | undefined = sessions
    ? { store: sessions, config, home: paths.home, cwd, logger }
    : undefined;
  const search: SessionSearchService | undefined = sessions && sessionSearchService(sessions);
  const live = new LiveSessions();
  const learning = createSkillLearning({ home: paths.home, config, logger, main: target });
  let disposing: Promise<void> | undefined;

  // Subagents (delegate_task): each child is a session of its own in state.db, linked to its parent.
  const spawnChild: ChildAgentFactory = (childOptions, meta) => {
    const routed = providers.childRoute(childOptions.target);
    let entry: LiveSession | undefined;
    const agent: Agent = new Agent({
      ...childOptions,
      ...routed,
      delegation: { ...childOptions.delegation, factory: spawnChild },
      onEvent: (e) => {
        logAgentEvent(logger, agent.sessionId, e);
        entry?.recorder?.handle(e);
        childOptions.onEvent?.(e);
      },
      onClose: (reason) => {
        if (entry) live.release(entry, reason);
      },
    });
    // A chat user's subagents are recorded as theirs (user, chat), like the conversation that started them.
    const owner = live.find(meta.parentSessionId)?.recorder?.owner;
    const recorder =
      recording &&
      recordAgent(recording, agent, {
        source: "subagent",
        resumed: false,
        parentSessionId: meta.parentSessionId,
        ...(owner ? { owner } : {}),
      });
    entry = { agent, recorder, child: true };
    live.add(entry);
    return agent;
  };

  const newAgent = (onEvent: AgentEventListener, o: NewAgentOptions = {}): Agent => {
    const { resume, branch } = o;
    const sessionPlatform = o.platform ?? platform;
    const history =
      resume && o.history
        ? o.history.filter((m) => m.role !== "system")
        : resume && sessions
          ? repairHistory(sessions.loadMessages(resume.id).map((m) => m.message))
          : undefined;
    const lineage = resume && sessions ? storedLineage(sessions, resume.id) : undefined;
    const branchSystem = branch?.messages[0]?.role === "system" ? branch.messages[0].content : undefined;
    let entry: LiveSession | undefined;
    let learn: AgentEventListener | undefined;
    const selectOwn = o.toolsets ? selectorFor(o.toolsets) : selectTools;
    const source = o.source ?? sessionPlatform;
    const scope = scopes.of(
      o.owner ? { platform: o.ownerPlatform ?? sessionPlatform, userId: o.owner.userId } : undefined,
    );
    // A chat's user searches only their own sessions on that platform.
    const ownSearch =
      o.owner && sessions ? sessionSearchService(sessions, { source, userId: o.owner.userId }) : search;
    const agent: Agent = new McpAwareAgent(mcp, {
      ...(resume ? { sessionId: resume.id, history: history ?? [] } : {}),
      ...(lineage ? { conversationId: lineage.conversationId, earlierSessionIds: lineage.earlier } : {}),
      ...(resume?.systemPrompt ? { systemPrompt: resume.systemPrompt } : {}),
      ...(branch ? { history: branch.messages.filter((m) => m.role !== "system") } : {}),
      ...(o.history && !resume && !branch ? { history: o.history.filter((m) => m.role !== "system") } : {}),
      ...(branchSystem !== undefined ? { systemPrompt: branchSystem } : {}),
      ...(ownSearch ? { sessions: ownSearch } : {}),
      target,
      router: providers.newRouter(),
      registry,
      toolNames: () => selectOwn().tools,
      config,
      home: paths.home,
      // A chat user's own folder is also where a remote backend's context files come from.
      cwd: scope.userKey ? scope.workdir : cwd,
      environments: scopes.environments(scope),
      scope,
      platform: sessionPlatform,
      approvals: new ApprovalSession(approvals, {
        yolo: o.yolo ?? yolo,
        ...(o.approvalMode ? { mode: o.approvalMode } : {}),
      }),
      delegation: { depth: 0, factory: spawnChild },
      hooks: plugins.hooks,
      promptSections: plugins.promptSections,
      ...(o.approve ? { approve: o.approve } : {}),
      ...(o.clarify ? { clarify: o.clarify } : {}),
      ...(o.awaitBackground ? { awaitBackground: true } : {}),
      ...(o.onNotice ? { onNotice: o.onNotice } : {}),
      onEvent: (e) => {
        logAgentEvent(logger, agent.sessionId, e);
        // Persist before the front end shows it: a kill after this point loses nothing shown.
        entry?.recorder?.handle(e);
        onEvent(e);
        learn?.(e);
      },
      onClose: (reason) => {
        statusListeners.delete(statusSink);
        if (entry) live.release(entry, reason);
      },
    });
    // One per session: front ends hand the same listener to each of their sessions.
    const statusSink: AgentEventListener = (e) => onEvent(e);
    statusListeners.add(statusSink);
    learn = learning.observe(() => agent, onEvent, { review: o.learn !== false });
    const recorder =
      recording &&
      recordAgent(recording, agent, {
        source,
        resumed: resume !== undefined,
        ...(o.owner ? { owner: o.owner } : {}),
        ...(scope.userKey ? { cwd: scope.workdir } : {}),
        ...(branch ? { parentSessionId: branch.parentSessionId } : {}),
        ...(branch?.title ? { title: branch.title } : {}),
        ...(o.autoTitle ? { autoTitle: true } : {}),
        onEvent,
      });
    if (branch) recorder?.copyHistory(branch.messages);
    // A history handed in (an API request's earlier turns) is part of the stored session, so it reads whole.
    else if (o.history && !resume && o.history.length > 0) recorder?.copyHistory(o.history);
    entry = { agent, recorder, child: false };
    live.add(entry);
    // Context sizes and prices of custom servers and OpenRouter, for later lookups; once per
    // process per endpoint, in the background (seed 004 §20).
    void refreshModelInfoInBackground(target, { home: paths.home });
    logger.info("session start", {
      session: agent.sessionId,
      conversation: agent.conversationId,
      platform: sessionPlatform,
      model: target.model,
      provider: target.provider,
      apiMode: target.apiMode,
    });
    return agent;
  };

  return {
    paths,
    config,
    configWarnings: warnings,
    target,
    registry,
    get toolNames() {
      return selectTools().tools;
    },
    unknownToolsets,
    environments,
    scopeOf: (user) => scopes.of(user),
    browser,
    logger,
    approvals,
    sessions,
    storeProblem,
    dropStoredMessages: (sessionId, count) => live.find(sessionId)?.recorder?.dropLast(count),
    setSessionTitle: (sessionId, title) => {
      const recorder = live.find(sessionId)?.recorder;
      if (!recorder) return storeProblem ?? "this session is not being saved";
      try {
        recorder.setTitle(title);
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
    openSessionCount: () => live.size,
    newAgent,
    mcp,
    plugins,
    dispose: () => {
      disposing ??= (async () => {
        // A review of the last turn gets a while to save what it learned.
        await learning.settled(REVIEW_WAIT_ON_EXIT_MS);
        // Background subagents stop and finish writing before the store closes.
        await live.closeAll("exit");
        // A title call still running gets a short while to land before the store closes.
        await live.settled(TITLE_WAIT_ON_EXIT_MS);
        await mcp.close();
        if (sessions) {
          await sessions.close();
        }
        await reaping;
        await Promise.all([environments.disposeAll(), scopes.disposeAll()]);
        await logger.flush();
      })();
      return disposing;
    },
  };
}
