/**
 * What a plugin's `register(api)` receives, and the record of what it registered. These types are
 * the plugin author's contract (docs/plugins.md); the entry module itself is plain JavaScript.
 */
import { HOOK_NAMES, type HookName } from "../core/config-defaults.js";
import type { Logger } from "../core/log.js";
import { PLUGIN_NAME_RE, TOOL_NAME_RE } from "./manifest.js";

/** What a plugin tool's handler sees of the call. */
export interface PluginToolContext {
  sessionId: string;
  taskId: string;
  /** The working directory of the session's terminal. */
  cwd: string;
  /** cli, telegram, cron, ... */
  platform: string;
  /** Aborted when the user interrupts the turn. */
  signal: AbortSignal;
}

/**
 * Returns (or resolves to) a string the model reads as is, a JSON-serializable value (sent as
 * JSON), or a tool result `{content: [...], isError?}`. A throw becomes an error result.
 */
export type PluginToolHandler = (args: Record<string, unknown>, ctx: PluginToolContext) => unknown;

export interface PluginToolSpec {
  name: string;
  /** Default: the manifest's toolset for this tool, else the plugin's name. */
  toolset?: string;
  /** Default: the manifest's. */
  description?: string;
  /** JSON Schema of the arguments; default: the manifest's. */
  parameters?: Record<string, unknown>;
  handler: PluginToolHandler;
}

/** A hook function: the hook's payload in, its answer (if the hook reads one) out. */
export type PluginHookFn = (payload: Record<string, unknown>, signal: AbortSignal) => unknown;

export interface PluginCommandContext {
  /** Prints a line for the user (stdout of `hermes <plugin> <verb>`, the chat for `/verb`). */
  print(text: string): void;
  /** Where it runs: the command line or the interactive chat. */
  surface: "cli" | "chat";
}

export interface PluginCommandSpec {
  name: string;
  description?: string;
  /** Its words after the verb. A returned string is printed; a throw is reported as the command's failure. */
  handler: (args: string[], ctx: PluginCommandContext) => unknown;
}

export interface PluginPromptSection {
  /** One of the manifest's `prompt_sections`. */
  id: string;
  /** The text, or a function giving it when a session builds its system prompt. */
  text: string | (() => string | Promise<string>);
}

export interface PluginLogger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface PluginApi {
  /** The plugin's name (from plugin.yaml). */
  readonly name: string;
  /** The plugin's folder. */
  readonly dir: string;
  /** HERMES_HOME. */
  readonly home: string;
  /** Its own block of config.yaml: `plugins.config.<name>` ({} when absent). */
  readonly config: Record<string, unknown>;
  /** Writes to HERMES_HOME/logs/agent.log, tagged with the plugin's name. */
  readonly logger: PluginLogger;
  registerTool(spec: PluginToolSpec): void;
  on(hook: HookName, fn: PluginHookFn): void;
  registerCommand(spec: PluginCommandSpec): void;
  registerPromptSection(section: PluginPromptSection): void;
}

/** Everything one `register(api)` call registered. */
export interface PluginRegistrations {
  tools: Map<string, PluginToolSpec>;
  hooks: Map<HookName, PluginHookFn[]>;
  commands: Map<string, PluginCommandSpec>;
  sections: Map<string, PluginPromptSection>;
}

export interface PluginApiOptions {
  name: string;
  dir: string;
  home: string;
  config: Record<string, unknown>;
  logger: Logger;
}

const hookNames: ReadonlySet<string> = new Set(HOOK_NAMES);

/**
 * An api that records registrations. Mistakes a plugin author makes (a bad name, a missing handler,
 * an unknown hook) throw at once, so `register` fails with the reason instead of half-working.
 */
export function createPluginApi(o: PluginApiOptions): { api: PluginApi; registrations: PluginRegistrations } {
  const registrations: PluginRegistrations = {
    tools: new Map(),
    hooks: new Map(),
    commands: new Map(),
    sections: new Map(),
  };
  const tag = (fields?: Record<string, unknown>) => ({ plugin: o.name, ...fields });
  const logger: PluginLogger = {
    debug: (m, f) => o.logger.debug(m, tag(f)),
    info: (m, f) => o.logger.info(m, tag(f)),
    warn: (m, f) => o.logger.warn(m, tag(f)),
    error: (m, f) => o.logger.error(m, tag(f)),
  };
  const needFunction = (what: string, fn: unknown): void => {
    if (typeof fn !== "function") throw new TypeError(`${what} needs a function`);
  };
  const api: PluginApi = {
    name: o.name,
    dir: o.dir,
    home: o.home,
    config: o.config,
    logger,
    registerTool(spec) {
      if (!TOOL_NAME_RE.test(String(spec?.name)))
        throw new TypeError(
          `registerTool: '${spec?.name}' is not a valid tool name (letters, digits, _ and -)`,
        );
      needFunction(`registerTool('${spec.name}')`, spec.handler);
      registrations.tools.set(spec.name, spec);
    },
    on(hook, fn) {
      if (!hookNames.has(hook)) throw new TypeError(`on: '${hook}' is not a hook (${HOOK_NAMES.join(", ")})`);
      needFunction(`on('${hook}')`, fn);
      const list = registrations.hooks.get(hook);
      if (list) list.push(fn);
      else registrations.hooks.set(hook, [fn]);
    },
    registerCommand(spec) {
      if (!PLUGIN_NAME_RE.test(String(spec?.name)))
        throw new TypeError(`registerCommand: '${spec?.name}' is not a valid command name`);
      needFunction(`registerCommand('${spec.name}')`, spec.handler);
      registrations.commands.set(spec.name, spec);
    },
    registerPromptSection(section) {
      if (!section?.id) throw new TypeError("registerPromptSection needs an id");
      if (typeof section.text !== "string")
        needFunction(`registerPromptSection('${section.id}')`, section.text);
      registrations.sections.set(section.id, section);
    },
  };
  return { api, registrations };
}
