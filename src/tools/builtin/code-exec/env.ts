import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { buildBaseEnv, findExecutable } from "../../environments/shell-state.js";

/**
 * The script's environment: the agent's own minus credential-shaped names (KEY, TOKEN, SECRET,
 * PASSWORD, CREDENTIAL, AUTH, ...) unless `terminal.env_passthrough` lists them. Scripts reach
 * tools through the socket, never through the agent's keys.
 */
export function scriptEnv(
  source: NodeJS.ProcessEnv,
  passthrough: readonly string[],
  socketPath: string,
): Record<string, string> {
  return {
    ...buildBaseEnv(source, passthrough),
    HERMES_RPC_SOCKET: socketPath,
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONIOENCODING: "utf-8",
  };
}

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The Python 3 to run scripts with. In project mode an active virtualenv wins (its packages are
 * the project's); otherwise the system interpreter, which starts faster than a pyenv shim; last,
 * `python3` on PATH. undefined when there is none.
 */
export function findPython(
  mode: "project" | "strict",
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (mode === "project" && env.VIRTUAL_ENV) {
    const venv = join(env.VIRTUAL_ENV, "bin", "python3");
    if (executable(venv)) return venv;
  }
  if (executable("/usr/bin/python3")) return "/usr/bin/python3";
  return findExecutable("python3", env.PATH);
}
