/**
 * `hermes gateway start | stop | restart | status | install | uninstall`: the gateway as a
 * systemd user service, or as a background process where systemd (or a user bus) is missing.
 */
import { type HermesConfig, loadConfig } from "../../core/config.js";
import { DEFAULT_CONFIG } from "../../core/config-defaults.js";
import { ensureHermesHome, getHermesHome } from "../../core/home.js";
import { startInBackground } from "./background.js";
import { gatewayLogPath } from "./gateway-log.js";
import { runningGateway } from "./pid-file.js";
import { gatewayIdentity } from "./service-identity.js";
import { formatStatus, readStatusFile } from "./status-file.js";
import { stopGatewayProcess } from "./stop.js";
import {
  removeUnit,
  systemctl,
  systemdAvailable,
  unitInstalled,
  unitPath,
  unitText,
  writeUnit,
} from "./systemd.js";

export interface CommandIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
}

const defaultIo = (): CommandIo => ({
  env: process.env,
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
});

/** Extra wait on top of drain_timeout before a gateway that does not stop is killed. */
const STOP_MARGIN_MS = 10_000;
/** How long `start` waits beyond the platforms' connect timeout for the gateway to report itself running. */
const START_MARGIN_MS = 30_000;

/** Config for timeouts; a broken config.yaml must not keep anyone from stopping a gateway. */
function configOf(home: string): HermesConfig {
  try {
    return loadConfig(ensureHermesHome(home).config).config;
  } catch {
    return DEFAULT_CONFIG;
  }
}

const context = (io: CommandIo) => {
  const home = getHermesHome(io.env);
  const identity = gatewayIdentity(home);
  const config = configOf(home);
  /** systemd manages this gateway: it is installed and the user's service manager answers. */
  const managed = (): boolean => unitInstalled(identity, io.env) && systemdAvailable(io.env);
  return { home: identity.home, identity, config, managed };
};

/** `systemctl --user <verb> <unit>` with the outcome printed; the exit code. */
function viaSystemd(
  verb: "start" | "stop" | "restart",
  past: string,
  unitName: string,
  io: CommandIo,
): number {
  const r = systemctl([verb, `${unitName}.service`], io.env);
  if (!r.ok) {
    io.err(`systemctl --user ${verb} ${unitName} failed: ${r.output}`);
    return 1;
  }
  io.out(`${past} ${unitName} (systemd user service).`);
  return 0;
}

export async function gatewayStart(io: CommandIo = defaultIo()): Promise<number> {
  const { home, identity, config, managed } = context(io);
  const running = runningGateway(home);
  if (running) {
    io.out(`The gateway is already running (pid ${running.pid}).`);
    return 0;
  }
  if (managed()) return viaSystemd("start", "Started", identity.unitName, io);
  const waitMs = config.gateway.platform_connect_timeout * 1000 + START_MARGIN_MS;
  const result = await startInBackground(identity, { env: io.env, waitMs });
  switch (result.kind) {
    case "running":
      io.out(`Gateway started in the background (pid ${result.pid}); log: ${gatewayLogPath(home)}`);
      return 0;
    case "starting":
      io.out(`Gateway starting in the background (pid ${result.pid}); see 'hermes gateway status'.`);
      return 0;
    case "failed":
      io.err(`The gateway exited at start (code ${result.code ?? "unknown"}):`);
      if (result.output) io.err(result.output);
      return 1;
  }
}

export async function gatewayStop(io: CommandIo = defaultIo()): Promise<number> {
  const { home, identity, config, managed } = context(io);
  if (managed() && systemctl(["is-active", "--quiet", `${identity.unitName}.service`], io.env).ok) {
    return viaSystemd("stop", "Stopped", identity.unitName, io);
  }
  const running = runningGateway(home);
  if (!running) {
    io.out(`No gateway is running for ${home}.`);
    return 0;
  }
  io.err(
    `Stopping the gateway (pid ${running.pid}); running turns get up to ${config.gateway.drain_timeout} s...`,
  );
  const outcome = await stopGatewayProcess(running.pid, config.gateway.drain_timeout * 1000 + STOP_MARGIN_MS);
  io.out(
    outcome === "killed"
      ? `The gateway (pid ${running.pid}) did not stop in time and was killed.`
      : `Gateway stopped (pid ${running.pid}).`,
  );
  return 0;
}

export async function gatewayRestart(io: CommandIo = defaultIo()): Promise<number> {
  const { identity, managed } = context(io);
  if (managed()) return viaSystemd("restart", "Restarted", identity.unitName, io);
  const stopped = await gatewayStop(io);
  return stopped === 0 ? gatewayStart(io) : stopped;
}

/** Exit code 0 when a gateway is running, 1 when not (like `systemctl status`, for scripts). */
export function gatewayStatus(opts: { json?: boolean }, io: CommandIo = defaultIo()): number {
  const { home, identity } = context(io);
  const running = runningGateway(home);
  const file = readStatusFile(home);
  const current = file && running && file.pid === running.pid ? file : undefined;
  const installed = unitInstalled(identity, io.env);
  if (opts.json) {
    io.out(
      JSON.stringify(
        {
          running: running !== undefined,
          pid: running?.pid ?? null,
          home,
          status: current ?? null,
          last_status: current ? null : (file ?? null),
          unit: { name: identity.unitName, path: unitPath(identity, io.env), installed },
        },
        null,
        2,
      ),
    );
    return running ? 0 : 1;
  }
  if (current) io.out(formatStatus(current, true));
  else if (running) io.out(`Gateway running (pid ${running.pid}), starting: no status written yet.`);
  else if (file) io.out(formatStatus(file, false));
  else io.out(`Gateway not running (${home}).`);
  io.out(
    `Service unit: ${installed ? unitPath(identity, io.env) : "not installed ('hermes gateway install')"}`,
  );
  return running ? 0 : 1;
}

export function gatewayInstall(io: CommandIo = defaultIo()): number {
  const { identity, config } = context(io);
  const text = unitText(identity, {
    ...(io.env.PATH ? { path: io.env.PATH } : {}),
    stopTimeoutSec: config.gateway.drain_timeout + STOP_MARGIN_MS / 1000,
  });
  const path = writeUnit(identity, text, io.env);
  const unit = `${identity.unitName}.service`;
  if (!systemdAvailable(io.env)) {
    io.out(`Wrote ${path}.`);
    io.out(
      "systemd is not available here (no systemctl, or no user service manager), so nothing was enabled.",
    );
    io.out("Start the gateway as a background process with 'hermes gateway start', or where systemd runs:");
    io.out(`  systemctl --user daemon-reload && systemctl --user enable --now ${unit}`);
    return 0;
  }
  for (const args of [["daemon-reload"], ["enable", unit]]) {
    const r = systemctl(args, io.env);
    if (!r.ok) {
      io.err(`Wrote ${path}, but 'systemctl --user ${args.join(" ")}' failed: ${r.output}`);
      return 1;
    }
  }
  io.out(`Installed and enabled ${unit} (${path}).`);
  io.out(
    "Start it now with 'hermes gateway start'. To keep it running after you log out: loginctl enable-linger",
  );
  return 0;
}

export function gatewayUninstall(io: CommandIo = defaultIo()): number {
  const { identity } = context(io);
  const unit = `${identity.unitName}.service`;
  const path = unitPath(identity, io.env);
  if (!unitInstalled(identity, io.env)) {
    io.out(`No gateway unit is installed (${path}).`);
    return 0;
  }
  const systemd = systemdAvailable(io.env);
  if (systemd) {
    systemctl(["stop", unit], io.env);
    systemctl(["disable", unit], io.env);
  }
  removeUnit(identity, io.env);
  if (systemd) systemctl(["daemon-reload"], io.env);
  io.out(`Removed ${path}${systemd ? ` (stopped and disabled ${unit})` : ""}.`);
  return 0;
}
