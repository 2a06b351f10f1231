import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { RemoteEnvironment, type RemoteTransport } from "./remote.js";
import { lastLines, runToEnd } from "./run-to-end.js";
import { perTaskProvider, SharedAttempt } from "./shared.js";
import type { EnvironmentProvider } from "./types.js";

/**
 * The docker backend: each task gets its own long-lived container (`docker run -d ... sleep
 * infinity`), commands and file operations go through `docker exec`, and the container is removed
 * when the session ends. Everything goes through the `docker` CLI, so a remote DOCKER_HOST works too.
 */

export interface DockerSettings {
  /** `terminal.docker_image`. */
  image: string;
  /** `terminal.container_cpu`: CPUs (fractions allowed). */
  cpu: number;
  /** `terminal.container_memory`: MB. */
  memoryMb: number;
  /** `terminal.docker_volumes`: `host:container[:ro]` mounts. */
  volumes: readonly string[];
  /** `terminal.docker_mount_cwd_to_workspace`: mount `hostCwd` at /workspace and start there. */
  mountCwd: boolean;
  /** The directory Hermes runs in (mounted when `mountCwd`). */
  hostCwd: string;
  /** The docker client (default `docker` on PATH). */
  dockerBinary?: string;
}

export const WORKSPACE = "/workspace";
/** Pulling an image can take minutes on a slow link. */
const START_TIMEOUT_MS = 10 * 60_000;

/** `hermes-<task>-<random>`: recognisable in `docker ps`, unique across sessions. */
export function containerName(taskId: string): string {
  const slug = taskId.replace(/[^A-Za-z0-9_.-]+/g, "-").slice(0, 32) || "task";
  return `hermes-${slug}-${randomBytes(3).toString("hex")}`;
}

/** Arguments of `docker run` for a task's container. Throws on a malformed volume. */
export function dockerRunArgs(settings: DockerSettings, name: string): string[] {
  const args = [
    "run",
    "-d",
    "--name",
    name,
    "--init",
    "--security-opt",
    "no-new-privileges",
    "--cpus",
    String(settings.cpu),
    "--memory",
    `${Math.round(settings.memoryMb)}m`,
    "--label",
    "hermes-agent=1",
  ];
  for (const volume of settings.volumes) {
    const parts = volume.split(":");
    if (parts.length < 2 || !parts[0] || !parts[1]?.startsWith("/")) {
      throw new Error(
        `Invalid terminal.docker_volumes entry '${volume}': use host_path:/container/path (optionally :ro).`,
      );
    }
    args.push("-v", volume);
  }
  if (settings.mountCwd) args.push("-v", `${settings.hostCwd}:${WORKSPACE}`, "-w", WORKSPACE);
  args.push(settings.image, "sleep", "infinity");
  return args;
}

/** The docker transport for one container, started on first use and removed on close. */
export class DockerContainer implements RemoteTransport {
  readonly label: string;
  private readonly binary: string;
  private readonly starting = new SharedAttempt(() => this.start());
  private started = false;

  constructor(
    private readonly settings: DockerSettings,
    readonly name: string,
  ) {
    this.label = `docker container ${name}`;
    this.binary = settings.dockerBinary ?? "docker";
  }

  connect(): Promise<void> {
    return this.starting.get();
  }

  private async start(): Promise<void> {
    const args = dockerRunArgs(this.settings, this.name);
    const res = await runToEnd(this.binary, args, START_TIMEOUT_MS);
    if (res.code === 0) {
      this.started = true;
      return;
    }
    const reason =
      res.error?.code === "ENOENT"
        ? `the docker client '${this.binary}' is not installed`
        : (res.error?.message ?? (lastLines(res.stderr) || `docker exited with status ${res.code}`));
    // A half-created container (e.g. a failed start) must not linger.
    await runToEnd(this.binary, ["rm", "-f", this.name], 30_000);
    throw new Error(
      `Cannot start a docker container from ${this.settings.image}: ${reason}. Check that Docker is ` +
        "running (docker info) and terminal.docker_image, terminal.docker_volumes in config.yaml.",
    );
  }

  spawn(script: string): ChildProcess {
    return spawn(this.binary, ["exec", "-i", this.name, "sh", "-c", script], {
      stdio: ["pipe", "pipe", "pipe"],
    });
  }

  async close(): Promise<void> {
    this.starting.reset();
    if (!this.started) return;
    this.started = false;
    await runToEnd(this.binary, ["rm", "-f", this.name], 30_000);
  }
}

export interface DockerProviderOptions {
  maxOutputBytes?: number;
}

/** One container per task id, each removed when the provider is disposed. */
export function createDockerProvider(
  settings: DockerSettings,
  options: DockerProviderOptions = {},
): EnvironmentProvider {
  return perTaskProvider(
    (taskId) =>
      new RemoteEnvironment({
        backend: "docker",
        transport: new DockerContainer(settings, containerName(taskId)),
        cwd: settings.mountCwd ? WORKSPACE : undefined,
        maxOutputBytes: options.maxOutputBytes,
        ownsTransport: true,
      }),
  );
}
