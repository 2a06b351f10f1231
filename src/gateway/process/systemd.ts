/**
 * The gateway as a systemd user service: `~/.config/systemd/user/<unit>.service`, managed with
 * `systemctl --user`. Where systemd (or a user bus) is missing, callers fall back to a background
 * process (background.ts).
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/fs.js";
import type { GatewayIdentity } from "./service-identity.js";

export function unitDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const config = env.XDG_CONFIG_HOME?.trim() || join(env.HOME?.trim() || homedir(), ".config");
  return join(config, "systemd", "user");
}

export const unitPath = (identity: GatewayIdentity, env: NodeJS.ProcessEnv = process.env): string =>
  join(unitDirectory(env), `${identity.unitName}.service`);

/** systemd splits ExecStart on spaces: words with spaces, quotes or backslashes are quoted. */
const quoteWord = (word: string): string =>
  /[\s"'\\]/.test(word) ? `"${word.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"` : word;

/** The unit file's text. `stopTimeoutSec` covers the gateway's drain. */
export function unitText(
  identity: GatewayIdentity,
  options: { path?: string; stopTimeoutSec: number },
): string {
  const environment = { ...identity.environment, ...(options.path ? { PATH: options.path } : {}) };
  const lines = [
    "[Unit]",
    `Description=Hermes Agent gateway${identity.profile ? ` (profile ${identity.profile})` : ""}`,
    "After=network-online.target",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${identity.command.map(quoteWord).join(" ")}`,
    ...Object.entries(environment).map(([k, v]) => `Environment=${quoteWord(`${k}=${v}`)}`),
    "Restart=on-failure",
    "RestartSec=10",
    "KillSignal=SIGTERM",
    `TimeoutStopSec=${Math.ceil(options.stopTimeoutSec)}`,
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ];
  return lines.join("\n");
}

export interface SystemctlResult {
  ok: boolean;
  /** stderr (or the spawn error) when it failed. */
  output: string;
}

/** Runs `systemctl --user ...`; never throws. */
export function systemctl(args: readonly string[], env: NodeJS.ProcessEnv = process.env): SystemctlResult {
  const result = spawnSync("systemctl", ["--user", ...args], { env, encoding: "utf8", timeout: 30_000 });
  if (result.error) return { ok: false, output: result.error.message };
  return { ok: result.status === 0, output: `${result.stderr ?? ""}${result.stdout ?? ""}`.trim() };
}

/** systemd is installed and this user's service manager answers (no user bus in containers, CI, SSH without lingering). */
export function systemdAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  return systemctl(["show-environment"], env).ok;
}

export const unitInstalled = (identity: GatewayIdentity, env: NodeJS.ProcessEnv = process.env): boolean =>
  existsSync(unitPath(identity, env));

export function writeUnit(
  identity: GatewayIdentity,
  text: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const path = unitPath(identity, env);
  writeFileAtomic(path, text);
  return path;
}

export function removeUnit(identity: GatewayIdentity, env: NodeJS.ProcessEnv = process.env): boolean {
  const path = unitPath(identity, env);
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}
