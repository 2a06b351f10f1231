import { readFileSync } from "node:fs";
import type { CliRun } from "../support/cli.js";

/**
 * A plugin whose post_llm_call hook notes each firing in `fired.txt` and then throws from a timer
 * ("flaky timer failure <n>"), outside any call Hermes could wrap in a try.
 */
export const flakyPlugin = {
  manifest: "name: flaky\nentry: index.mjs\nhooks: [post_llm_call]\n",
  files: {
    "index.mjs": `import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
export default function register(api) {
  const fired = join(api.dir, "fired.txt");
  api.on("post_llm_call", () => {
    appendFileSync(fired, "fired\\n");
    const n = readFileSync(fired, "utf8").trim().split("\\n").length;
    setTimeout(() => {
      throw new Error("flaky timer failure " + n);
    }, 10);
  });
}
`,
  },
};

export interface OutputWatch {
  /** Resolves with the match once the output so far matches `pattern`; rejects if the process exits first. */
  wait(pattern: RegExp, stream?: "stdout" | "stderr", timeoutMs?: number): Promise<RegExpExecArray>;
  readonly stderr: string;
}

/** Keeps a process's output from now on, so a wait never misses what came before it. */
export function watchOutput(run: CliRun): OutputWatch {
  const seen = { stdout: "", stderr: "" };
  const waiters = new Set<() => void>();
  let exited = false;
  const poke = (): void => {
    for (const w of [...waiters]) w();
  };
  run.child.stdout?.on("data", (d: Buffer) => {
    seen.stdout += d.toString();
    poke();
  });
  run.child.stderr?.on("data", (d: Buffer) => {
    seen.stderr += d.toString();
    poke();
  });
  run.child.once("close", () => {
    exited = true;
    poke();
  });
  return {
    get stderr() {
      return seen.stderr;
    },
    wait: (pattern, stream = "stderr", timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${pattern} not seen on ${stream} in time:\n${seen[stream]}`));
        }, timeoutMs);
        function check(): void {
          const m = pattern.exec(seen[stream]);
          if (!m && !exited) return;
          waiters.delete(check);
          clearTimeout(timer);
          if (m) resolve(m);
          else
            reject(new Error(`the process exited before ${pattern} was seen on ${stream}:\n${seen[stream]}`));
        }
        waiters.add(check);
        check();
      }),
  };
}

export interface LogRecord {
  msg: string;
  [field: string]: unknown;
}

/** The JSON records of a log file. */
export const logRecords = (file: string): LogRecord[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogRecord);
