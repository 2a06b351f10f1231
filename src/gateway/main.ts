/**
 * `hermes gateway run`: one process that connects the chat platforms that are on, serves the
 * services the entry handed in (the API server), runs until SIGTERM/SIGINT, then drains.
 */
import { loadConfig } from "../core/config.js";
import { loadDotEnv } from "../core/env.js";
import { relaunchUnderHeapBudget } from "../core/heap.js";
import { ensureHermesHome, getHermesHome } from "../core/home.js";
import { VERSION } from "../core/version.js";
import { type CrashGuard, installCrashGuard } from "../runtime/crash-guard.js";
import { createRuntime, type Runtime } from "../runtime/runtime.js";
import { persistenceRedactor } from "../runtime/state-store.js";
import { GatewayAuth } from "./auth/authorize.js";
import { type DeliveryLedger, gatewayLedger } from "./ledger.js";
import { detectPlatforms, noPlatformMessage } from "./platforms/index.js";
import { buildPlatforms } from "./process/build-platforms.js";
import { adapterDetail, errorText, serviceDetail } from "./process/describe.js";
import { createGatewayLogger } from "./process/gateway-log.js";
import { takeGatewayLock } from "./process/lock.js";
import type { PlatformStatus } from "./process/status-file.js";
import { type StatusSnapshot, StatusWriter } from "./process/status-writer.js";
import type { SupervisedAdapter } from "./process/supervised-adapter.js";
import { GatewayRunner } from "./runner.js";
import type { GatewayLog, ServiceLoaders } from "./services.js";
import type { GatewayService } from "./types.js";

export interface RunGatewayOptions {
  /** Stop a gateway of this profile that is running and take over. */
  replace?: boolean;
  /** Services of other front ends (api_server), loaded only when on. */
  services?: ServiceLoaders;
  /** Hermes's version as MCP servers are told it (default: the package's). */
  version?: string;
  env?: NodeJS.ProcessEnv;
  /** Console output (default: process.stdout / process.stderr). */
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/** Margin on top of drain_timeout before `--replace` / `stop` kill a gateway that does not exit. */
export const STOP_MARGIN_MS = 10_000;

/** Resolves on the first SIGTERM/SIGINT; a second one exits at once. */
function stopSignal(onForce: () => void): { stopped: Promise<NodeJS.Signals>; dispose: () => void } {
  let resolveStop: (signal: NodeJS.Signals) => void = () => {};
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    resolveStop = resolve;
  });
  let received = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (received) {
      onForce();
      return;
    }
    received = true;
    resolveStop(signal);
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
  return {
    stopped,
    dispose: () => {
      process.off("SIGTERM", handler);
      process.off("SIGINT", handler);
    },
  };
}

/** Runs the gateway until a stop signal; resolves to the exit code. Config/home/provider errors throw. */
export async function runGateway(options: RunGatewayOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const err = options.err ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const paths = ensureHermesHome(getHermesHome(env));
  loadDotEnv(paths.env, env);
  const { config } = loadConfig(paths.config);
  // A server's memory levels off under a heap budget; the process restarts itself with it (before
  // it says anything, so nothing is printed twice).
  if (env === process.env) relaunchUnderHeapBudget(config.gateway.max_heap_mb);
  const states = detectPlatforms(config, env);
  const services = options.services ?? {};
  const usable = states.filter((s) => s.on && (s.kind === "chat" || services[s.name]));
  for (const s of states) {
    if (s.on && s.kind === "service" && !services[s.name])
      err(`${s.name}: on, but this build has no such service`);
  }
  if (usable.length === 0) {
    err(noPlatformMessage(states));
    return 1;
  }
  const drainMs = config.gateway.drain_timeout * 1000;
  const lock = await takeGatewayLock(paths.home, {
    replace: options.replace === true,
    graceMs: drainMs + STOP_MARGIN_MS,
    say: err,
  });
  if ("refused" in lock) {
    err(lock.refused);
    return 1;
  }
  const logger = createGatewayLogger(paths.home, persistenceRedactor(config, paths.home));
  const log = logger.log;
  const startedAt = new Date();
  let status: StatusWriter | undefined;
  const signals = stopSignal(() => {
    err("Second signal: exiting without waiting for running turns.");
    log("warn", "forced exit during drain");
    status?.stop();
    lock.release();
    process.exit(130);
  });
  let runtime: Runtime | undefined;
  let guard: CrashGuard | undefined;
  try {
    log("info", "gateway starting", { pid: process.pid, platforms: usable.map((s) => s.name) });
    runtime = createRuntime({ platform: "gateway", env, version: options.version ?? VERSION });
    // An error nobody caught (a plugin, an MCP client, an adapter) is logged; the gateway keeps running.
    guard = installCrashGuard({ runtime, log, say: err });
    for (const warning of runtime.configWarnings) log("warn", warning);
    if (!runtime.sessions) throw new Error(runtime.storeProblem ?? "state.db could not be opened");
    const ledger = gatewayLedger(runtime.sessions);
    const auth = new GatewayAuth({ pairing: runtime.sessions.pairing, config: runtime.config, env, log });
    let announce = false;
    const built = await buildPlatforms({
      runtime,
      states: usable,
      services,
      env,
      log,
      onChange: (adapter) => {
        status?.poke();
        if (announce) out(platformLine(adapter));
      },
    });
    for (const [name, why] of built.failed) err(`${name}: cannot start: ${why}`);
    if (built.adapters.length === 0 && built.services.length === 0) {
      err("No platform could be started; see the errors above and logs/gateway.log.");
      return 1;
    }
    const started: GatewayService[] = [];
    const runner = new GatewayRunner({ runtime, adapters: built.adapters, ledger, auth, log });
    const openLedger = ledger;
    status = new StatusWriter({
      home: paths.home,
      startedAt,
      log,
      collect: () => snapshot(runner, built.adapters, started, openLedger, built.failed),
    });
    status.start();
    await startAll(runner, built.services, started, log, err);
    for (const adapter of built.adapters) out(platformLine(adapter));
    for (const service of started) out(`${service.name}: ${serviceDetail(service)}`);
    announce = true;
    status.setState("running");
    err(`Gateway running (pid ${process.pid}). Stop it with Ctrl+C or 'hermes gateway stop'.`);
    log("info", "gateway running");
    const signal = await signals.stopped;
    announce = false;
    err(`${signal}: finishing running turns (up to ${config.gateway.drain_timeout} s)...`);
    log("info", "gateway draining", { signal, drainMs });
    status.setState("draining");
    const results = await Promise.allSettled([runner.drain(drainMs), ...started.map((s) => s.stop(drainMs))]);
    for (const r of results)
      if (r.status === "rejected") log("error", "drain step failed", { error: errorText(r.reason) });
    return 0;
  } finally {
    await runtime
      ?.dispose()
      .catch((e: unknown) => log("error", "runtime dispose failed", { error: errorText(e) }));
    guard?.dispose();
    status?.stop();
    signals.dispose();
    lock.release();
    log("info", "gateway stopped");
    logger.close();
  }
}

/** Starts the runner (it starts the adapters) and the services; a service that fails is reported and left out. */
async function startAll(
  runner: GatewayRunner,
  services: readonly GatewayService[],
  started: GatewayService[],
  log: GatewayLog,
  err: (line: string) => void,
): Promise<void> {
  await Promise.all([
    runner.start(),
    ...services.map(async (service) => {
      try {
        await service.start();
        started.push(service);
      } catch (e) {
        err(`${service.name}: cannot start: ${errorText(e)}`);
        log("error", "service failed to start", { service: service.name, error: errorText(e) });
      }
    }),
  ]);
}

function platformLine(adapter: SupervisedAdapter): string {
  if (adapter.connected) {
    const detail = adapterDetail(adapter.current);
    if (!detail) return `${adapter.name}: connected`;
    return `${adapter.name}: connected${detail.startsWith("as ") ? ` ${detail}` : ` (${detail})`}`;
  }
  return `${adapter.name}: not connected (${adapter.lastError ?? "starting"}); retrying in the background`;
}

function snapshot(
  runner: GatewayRunner,
  adapters: readonly SupervisedAdapter[],
  services: readonly GatewayService[],
  ledger: DeliveryLedger,
  failed: ReadonlyMap<string, string>,
): StatusSnapshot {
  const view = runner.status();
  const platforms: PlatformStatus[] = adapters.map((a) => {
    const detail = a.connected ? adapterDetail(a.current) : undefined;
    const lastError = a.lastError ?? view.platforms.find((p) => p.name === a.name)?.lastError;
    return {
      name: a.name,
      connected: a.connected,
      ...(detail ? { detail } : {}),
      ...(lastError ? { lastError } : {}),
    };
  });
  for (const [name, why] of failed) platforms.push({ name, connected: false, lastError: why });
  let pending: number | null = null;
  let oldest: number | null = null;
  try {
    const stats = ledger.stats();
    pending = stats.pending;
    oldest = stats.oldestPendingAgeMs;
  } catch {
    // state.db busy or closed: the reader sees "unknown".
  }
  return {
    platforms,
    services: services.map((s) => {
      try {
        return { ...s.status(), name: s.name };
      } catch (e) {
        return { name: s.name, error: errorText(e) };
      }
    }),
    live_sessions: view.liveSessions,
    lanes: view.lanes.map((l) => ({
      key: l.key,
      running: Boolean(l.running),
      queued: Number(l.queued) || 0,
    })),
    ledger_pending: pending,
    ledger_oldest_pending_ms: oldest,
    ...(view.lastError ? { last_error: view.lastError } : {}),
  };
}
