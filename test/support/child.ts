import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

/** Arguments that make `node` run a test helper script against the TypeScript sources. */
export function tsChildArgs(script: string, args: readonly string[]): string[] {
  const here = import.meta.dirname;
  return [
    "--experimental-transform-types",
    "--no-warnings",
    "--import",
    join(here, "ts-child.mjs"),
    join(here, script),
    ...args,
  ];
}

export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A helper of test/support started with stdin open; `done` resolves when it exits. */
export function startTsChild(
  script: string,
  args: readonly string[],
  onLine?: (line: string) => void,
): { child: ChildProcess; done: Promise<ChildRun> } {
  const child = spawn(process.execPath, tsChildArgs(script, args), { stdio: ["pipe", "pipe", "pipe"] });
  const done = new Promise<ChildRun>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    let partial = "";
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString();
      partial += d.toString();
      const lines = partial.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) onLine?.(line);
    });
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

/** Runs a helper of test/support to its end; `onLine` sees each stdout line as it arrives. */
export function runTsChild(
  script: string,
  args: readonly string[],
  onLine?: (line: string) => void,
): Promise<ChildRun> {
  const { child, done } = startTsChild(script, args, onLine);
  child.stdin!.end();
  return done;
}

/**
 * Starts several helpers that each print "ready" once loaded and then wait for a line on stdin;
 * sends it to all of them at once, so their work overlaps however slowly each one started.
 */
export async function runTogether(runs: ReadonlyArray<[string, readonly string[]]>): Promise<ChildRun[]> {
  let readyCount = 0;
  let allReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    allReady = resolve;
  });
  const started = runs.map(([script, args]) =>
    startTsChild(script, args, (line) => {
      if (line === "ready" && ++readyCount === runs.length) allReady();
    }),
  );
  const exited = Promise.all(started.map((s) => s.done));
  await Promise.race([ready, exited]);
  for (const s of started) s.child.stdin!.end("go\n");
  return exited;
}
