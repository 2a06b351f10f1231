import { ConfigError } from "../core/config.js";
import { getHermesHome, homePaths } from "../core/home.js";
import type { ProviderProblem } from "../llm/detect.js";

/** One screen telling the user exactly how to point Hermes at a model. */
export function formatProviderProblem(problem: ProviderProblem, home = getHermesHome()): string {
  const paths = homePaths(home);
  const width = Math.max(...problem.envVars.map((v) => v.name.length));
  const keyWidth = Math.max(...problem.configKeys.map((k) => k.key.length));
  return [
    `hermes: ${problem.summary}`,
    "",
    `Set one of these (in the environment, or in ${paths.env}):`,
    ...problem.envVars.map((v) => `  ${v.name.padEnd(width)}  ${v.description}`),
    "",
    `Or choose explicitly in ${paths.config}:`,
    ...problem.configKeys.map((k) => `  ${k.key.padEnd(keyWidth)}  ${k.description}`),
    "",
    "Examples:",
    `  echo 'OPENROUTER_API_KEY=sk-or-...' >> ${paths.env}`,
    "  hermes config set model.base_url http://localhost:11434/v1   # Ollama",
    "  hermes config set model.default llama3.1",
  ].join("\n");
}

/** What a file-system error code means, in words. */
const FS_PROBLEMS: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EEXIST: "a file is in the way",
  ENOTDIR: "a file is in the way of a folder",
  EISDIR: "it is a folder",
};

/** A file-system error (EACCES writing config.yaml, ...) as one line naming the path and a fix. */
function describeFsError(err: NodeJS.ErrnoException): string | undefined {
  const problem = err.code ? FS_PROBLEMS[err.code] : undefined;
  if (!problem || !err.path) return undefined;
  const home = getHermesHome();
  const inHome = err.path === home || err.path.startsWith(`${home}/`);
  const fix = inHome
    ? ` (HERMES_HOME is ${home}: make it writable, or set HERMES_HOME to a folder you own)`
    : "";
  return `hermes: cannot ${err.syscall ?? "use"} ${err.path}: ${problem}${fix}`;
}

/** Turns any startup failure into a message for a human: no stack traces for expected problems. */
export function describeFatal(err: unknown): string {
  if (err instanceof ConfigError) return `hermes: ${err.message}`;
  if (err instanceof Error && "code" in err && !process.env.HERMES_DEBUG) {
    const fs = describeFsError(err as NodeJS.ErrnoException);
    if (fs) return fs;
  }
  if (err instanceof Error && err.name === "NoProviderError" && "problem" in err) {
    return formatProviderProblem((err as Error & { problem: ProviderProblem }).problem);
  }
  if (err instanceof Error) {
    return process.env.HERMES_DEBUG ? `hermes: ${err.stack ?? err.message}` : `hermes: ${err.message}`;
  }
  return `hermes: ${String(err)}`;
}
