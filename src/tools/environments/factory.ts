import { resolve } from "node:path";
import type { HermesConfig } from "../../core/config.js";
import { shutdownProcessRegistry } from "../process/registry.js";
import { createDockerProvider } from "./docker.js";
import { createLocalEnvironmentProvider } from "./local.js";
import { createSshProvider } from "./ssh.js";
import type { EnvironmentProvider } from "./types.js";

export interface EnvironmentFactoryOptions {
  /** HERMES_HOME: background processes are recorded there and ended with the provider. */
  home: string;
  /** The directory Hermes was started in; a relative `terminal.cwd` is resolved against it (local). */
  cwd: string;
  /** The user's home directory on this machine (`~` and `$HOME` of local commands). Default os.homedir(). */
  userHome?: string;
}

/**
 * The execution environments of one Hermes run, chosen by `terminal.backend` (local | ssh | docker).
 * Throws an Error naming the config key when the backend cannot be set up (e.g. ssh without a host).
 * `release` disposes one task's environment (a finished conversation or subagent); `disposeAll`
 * disposes all of them and also ends this run's background processes (except `nohup` ones).
 */
export function createEnvironmentProvider(
  config: HermesConfig,
  options: EnvironmentFactoryOptions,
): EnvironmentProvider {
  const t = config.terminal;
  const maxOutputBytes = config.tool_output.max_bytes;
  let inner: EnvironmentProvider;
  switch (t.backend) {
    case "ssh":
      if (!t.ssh_host.trim()) {
        throw new Error(
          "terminal.backend is 'ssh' but terminal.ssh_host is empty: set it with 'hermes config set terminal.ssh_host HOST'.",
        );
      }
      inner = createSshProvider(
        { host: t.ssh_host.trim(), user: t.ssh_user.trim(), port: t.ssh_port, key: t.ssh_key.trim() },
        // "." (the default) means the remote home; an absolute or ~ path is used as given.
        { cwd: t.cwd === "." ? undefined : t.cwd, maxOutputBytes },
      );
      break;
    case "docker":
      inner = createDockerProvider(
        {
          image: t.docker_image,
          cpu: t.container_cpu,
          memoryMb: t.container_memory,
          volumes: t.docker_volumes,
          mountCwd: t.docker_mount_cwd_to_workspace,
          hostCwd: resolve(options.cwd, t.cwd),
        },
        { maxOutputBytes },
      );
      break;
    default:
      inner = createLocalEnvironmentProvider({
        cwd: t.cwd.startsWith("~") ? t.cwd : resolve(options.cwd, t.cwd),
        home: options.userHome,
        envPassthrough: t.env_passthrough,
        maxOutputBytes,
      });
  }
  return {
    get: (taskId) => inner.get(taskId),
    fork: (parentTaskId, childTaskId) => inner.fork(parentTaskId, childTaskId),
    release: (taskId) => inner.release(taskId),
    async disposeAll() {
      await Promise.all([inner.disposeAll(), shutdownProcessRegistry(options.home)]);
    },
  };
}
