import type { HermesConfig } from "../../../core/config.js";
import { OutputCollector } from "../../environments/output-collector.js";

/** Bytes of stdout the model gets back: the script should print a summary, not raw tool output. */
export const MAX_STDOUT_BYTES = 50_000;
/** Bytes of stderr kept for error reports (tracebacks). */
export const MAX_STDERR_BYTES = 10_000;
/** Time between SIGTERM and SIGKILL when a script overruns its time. */
export const KILL_GRACE_MS = 5_000;

export type CodeExecMode = "project" | "strict";

export interface CodeExecSettings {
  mode: CodeExecMode;
  timeoutSeconds: number;
  maxToolCalls: number;
}

/** The code_execution section of the config, with defaults for missing or odd values. */
export function codeExecSettings(config: HermesConfig | undefined): CodeExecSettings {
  const c = config?.code_execution;
  const timeout = c?.timeout;
  const calls = c?.max_tool_calls;
  return {
    mode: c?.mode === "strict" ? "strict" : "project",
    timeoutSeconds: typeof timeout === "number" && timeout > 0 ? timeout : 300,
    maxToolCalls: typeof calls === "number" && calls >= 1 ? Math.floor(calls) : 50,
  };
}

const kb = (bytes: number): string => `${Math.round(bytes / 1000)} KB`;

/**
 * A script's stdout or stderr in bounded memory: the first 70% of the cap as it comes and a rolling
 * tail of the last 30%, with a marker saying how much was cut between them.
 */
export class OutputCapture extends OutputCollector {
  constructor(maxBytes: number, label: string) {
    const head = Math.floor(maxBytes * 0.7);
    super(head, undefined, {
      tailCap: maxBytes - head,
      marker: (cut) =>
        `[... ${cut} bytes of ${label} cut: ${label} is capped at ${kb(maxBytes)}, first and last parts kept ...]`,
    });
  }
}
