import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RemoteEnvironment, type RemoteTransport } from "./remote.js";
import { lastLines, runToEnd } from "./run-to-end.js";
import { perTaskProvider, SharedAttempt } from "./shared.js";
import { shQuote } from "./shell-state.js";
import type { EnvironmentProvider } from "./types.js";

/**
 * The ssh backend: commands and file operations run on another host through the system `ssh`
 * client. One master connection per Hermes process and host (ControlMaster with ControlPersist)
 * carries every command, so each costs a session, not a handshake. No prompts ever: BatchMode,
 * new host keys accepted once and then pinned, a bounded connect timeout.
 */

export interface SshSettings {
  host: string;
  /** Login name; empty means ssh's default (ssh config, then the local user name). */
  user?: string;
  port?: number;
  /** Identity file; empty means the agent and ssh's default keys. */
  key?: string;
  /** Seconds to wait for the TCP connection and the handshake (default 10). */
  connectTimeoutS?: number;
  /** Extra `-o` options, e.g. `UserKnownHostsFile=/path`. */
  options?: readonly string[];
  /** The ssh client (default `ssh` on PATH). */
  sshBinary?: string;
}

/** A master connection keeps living this long (seconds) after its last session, if Hermes died. */
const CONTROL_PERSIST_S = 300;

/** The ssh transport: one control socket in a private temp dir, shared by every task on the host. */
export class SshConnection implements RemoteTransport {
  readonly label: string;
  /** `user@host:port`, for messages. */
  private readonly target: string;
  private readonly binary: string;
  private controlDir: string | undefined;
  private readonly connection = new SharedAttempt(() => this.open());

  constructor(private readonly settings: SshSettings) {
    if (!settings.host || settings.host.startsWith("-")) {
      throw new Error(
        `Invalid ssh host '${settings.host}': set terminal.ssh_host to a host name or address.`,
      );
    }
    const user = settings.user ? `${settings.user}@` : "";
    this.target = `${user}${settings.host}:${settings.port ?? 22}`;
    this.label = `ssh ${this.target}`;
    this.binary = settings.sshBinary ?? "ssh";
  }

  /** ssh options shared by every invocation (the control path once connected). */
  private args(): string[] {
    const s = this.settings;
    const timeout = Math.max(1, Math.round(s.connectTimeoutS ?? 10));
    const args = [
      "-T",
      "-o",
      "BatchMode=yes",
      "-o",
      "StrictHostKeyChecking=accept-new",
      "-o",
      `ConnectTimeout=${timeout}`,
      "-o",
      "ServerAliveInterval=15",
      "-o",
      "ServerAliveCountMax=3",
      "-o",
      "LogLevel=ERROR",
      "-p",
      String(s.port ?? 22),
    ];
    if (s.user) args.push("-l", s.user);
    if (s.key) args.push("-i", s.key, "-o", "IdentitiesOnly=yes");
    if (this.controlDir) {
      args.push(
        "-o",
        "ControlMaster=auto",
        "-o",
        `ControlPath=${join(this.controlDir, "%C")}`,
        "-o",
        `ControlPersist=${CONTROL_PERSIST_S}`,
      );
    }
    for (const o of s.options ?? []) args.push("-o", o);
    return args;
  }

  connect(): Promise<void> {
    return this.connection.get();
  }

  /** Starts the master connection with a no-op command; its failure message is ssh's own. */
  private async open(): Promise<void> {
    // A short, private directory: Unix socket paths are limited to ~100 bytes.
    this.controlDir ??= await mkdtemp(join(tmpdir(), "hermes-ssh-"));
    const limitMs = ((this.settings.connectTimeoutS ?? 10) + 20) * 1000;
    const res = await runToEnd(this.binary, [...this.args(), "--", this.settings.host, "true"], limitMs);
    if (res.code === 0) return;
    const reason = res.error
      ? res.error.code === "ENOENT"
        ? `the ssh client '${this.binary}' is not installed`
        : res.error.message
      : res.timedOut
        ? `no answer within ${limitMs / 1000} s`
        : lastLines(res.stderr) || `ssh exited with status ${res.code}`;
    throw new Error(
      `Cannot connect to ${this.target} over ssh: ${reason}. Check terminal.ssh_host, ` +
        "terminal.ssh_user, terminal.ssh_port and terminal.ssh_key in config.yaml, and that the host " +
        "accepts this key without a password.",
    );
  }

  spawn(script: string): ChildProcess {
    return spawn(this.binary, [...this.args(), "--", this.settings.host, `sh -c ${shQuote(script)}`], {
      stdio: ["pipe", "pipe", "pipe"],
    });
  }

  async close(): Promise<void> {
    const dir = this.controlDir;
    if (!dir) return;
    this.connection.reset();
    await runToEnd(this.binary, [...this.args(), "-O", "exit", "--", this.settings.host], 5_000);
    this.controlDir = undefined;
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

export interface SshProviderOptions {
  /** Starting directory of each task on the host (absolute or `~/...`; default the remote home). */
  cwd?: string;
  maxOutputBytes?: number;
}

/** One environment per task id on one host, all over one shared master connection. */
export function createSshProvider(
  settings: SshSettings,
  options: SshProviderOptions = {},
): EnvironmentProvider {
  const connection = new SshConnection(settings);
  return perTaskProvider(
    () =>
      new RemoteEnvironment({
        backend: "ssh",
        transport: connection,
        cwd: options.cwd,
        maxOutputBytes: options.maxOutputBytes,
        ownsTransport: false,
      }),
    () => connection.close(),
  );
}
