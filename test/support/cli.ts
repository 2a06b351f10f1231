import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./temp.js";

export const ROOT = join(import.meta.dirname, "..", "..");
export const BIN = join(ROOT, "bin", "hermes.js");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliRun {
  child: ReturnType<typeof spawn>;
  /** Resolves when the process exits. */
  done: Promise<CliResult>;
  /** Resolves when stderr has contained `text`. */
  waitForStderr(text: string): Promise<void>;
}

/** Env for a hermetic run: no provider keys or proxies leak in from the machine. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/API_KEY|BASE_URL|PROXY|TOKEN|^HERMES_/i.test(k)) continue;
    env[k] = v;
  }
  return { ...env, NO_COLOR: "1", ...extra };
}

const live = new Set<ReturnType<typeof spawn>>();

/** Kills any `hermes` child a test left running (a failed or timed-out test must not leave strays). */
export function killStrays(): void {
  for (const child of live) child.kill("SIGKILL");
  live.clear();
}

/** Starts the real `hermes` binary (async: the fake LLM server lives in this process). */
export function startHermes(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; input?: string },
): CliRun {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  // A test that fails before it stops its server leaves it to killStrays.
  live.add(child);
  let stdout = "";
  let stderr = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
    for (const w of waiters.filter((x) => stderr.includes(x.text))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  if (opts.input !== undefined) child.stdin.end(opts.input);
  else child.stdin.end();
  const done = new Promise<CliResult>((resolve) => {
    child.on("close", (code, signal) => {
      live.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    done,
    waitForStderr: (text) =>
      stderr.includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ text, resolve })),
  };
}

/** The URL `hermes api serve` prints once it listens; rejects when the server exits first. */
export function apiServerUrl(run: CliRun): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = "";
    run.child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /API server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    run.done.then((r) => reject(new Error(`exited early: ${r.code} ${r.stderr}`)));
  });
}

export function runHermes(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; input?: string },
): Promise<CliResult> {
  return startHermes(args, opts).done;
}

export interface Sandbox {
  home: string;
  work: string;
}

/** A fresh HERMES_HOME (with an optional config.yaml) and a working directory. */
export function sandbox(configYaml?: string): Sandbox {
  const root = tempDir("hermes-e2e-");
  const home = join(root, "home");
  const work = join(root, "work");
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  if (configYaml !== undefined) writeFileSync(join(home, "config.yaml"), configYaml);
  return { home, work };
}
