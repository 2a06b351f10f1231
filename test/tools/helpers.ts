import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG, type HermesConfig } from "../../src/core/config-defaults.js";
import { registerBuiltinTools } from "../../src/tools/builtin/index.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import {
  createLocalEnvironmentProvider,
  type LocalEnvironmentOptions,
} from "../../src/tools/environments/local.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { shutdownProcessRegistry } from "../../src/tools/process/registry.js";
import { ToolRegistry } from "../../src/tools/registry.js";

export interface ToolHarness {
  /** Task working directory (a fresh temp dir). */
  root: string;
  /** HERMES_HOME (a fresh temp dir). */
  home: string;
  /** The user's home for `~` (a fresh temp dir). */
  userHome: string;
  ctx: ToolContext;
  /** What tools pushed through `ctx.notices` (background process notices), oldest first. */
  notices: string[];
  registry: HermesToolRegistry;
  provider: EnvironmentProvider;
  /** Dispatches a tool and parses its JSON result. */
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>>;
  dispose(): Promise<void>;
}

export interface HarnessOptions {
  config?: (c: HermesConfig) => void;
  env?: Partial<LocalEnvironmentOptions>;
}

/** A ToolContext backed by the real local environment in temp dirs, with every built-in tool registered. */
export async function createHarness(options: HarnessOptions = {}): Promise<ToolHarness> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "hermes-tools-test-")));
  const root = join(base, "work");
  const home = join(base, "hermes-home");
  const userHome = join(base, "user-home");
  await Promise.all([mkdir(root), mkdir(home), mkdir(userHome)]);
  const config = structuredClone(DEFAULT_CONFIG);
  options.config?.(config);
  const provider = createLocalEnvironmentProvider({
    cwd: root,
    home: userHome,
    envPassthrough: config.terminal.env_passthrough,
    maxOutputBytes: config.tool_output.max_bytes,
    ...options.env,
  });
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  registerBuiltinTools(registry);
  const notices: string[] = [];
  const makeCtx = (signal: AbortSignal): ToolContext => ({
    taskId: "test-task",
    sessionId: "test-session",
    signal,
    config,
    home,
    env: provider.get("test-task"),
    platform: "cli",
    notices: { push: (text) => notices.push(text) },
  });
  const ctx = makeCtx(new AbortController().signal);
  return {
    root,
    home,
    userHome,
    ctx,
    notices,
    registry,
    provider,
    async call(name, args, signal) {
      const raw = await registry.dispatch(name, args, signal ? makeCtx(signal) : ctx);
      return JSON.parse(raw) as Record<string, unknown>;
    },
    async dispose() {
      await Promise.all([provider.disposeAll(), shutdownProcessRegistry(home)]);
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** True while a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z";
  } catch {
    return true;
  }
}
