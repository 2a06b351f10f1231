import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isAlive } from "../helpers.js";
import { type CodeExecHarness, createCodeExecHarness } from "./setup.js";

/**
 * A script whose child left its process group with setsid and kept the script's stdout: neither
 * the timeout nor an interrupt may wait for that child, and it must not outlive the run.
 */

let h: CodeExecHarness | undefined;
const strays: number[] = [];
afterEach(async () => {
  for (const pid of strays.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  await h?.dispose();
  h = undefined;
});

const py = (...lines: string[]): string => lines.join("\n");

/** Python that starts `setsid sleep 30` (inheriting stdout), records its pid, then does `then`. */
const withSetsidChild = (pidFile: string, ...then: string[]): string =>
  py(
    "import subprocess, time",
    "child = subprocess.Popen(['setsid', 'sleep', '30'])",
    `open(${JSON.stringify(pidFile)}, 'w').write(str(child.pid))`,
    "print('started', flush=True)",
    ...then,
  );

const readPid = (file: string): number => {
  const pid = Number(readFileSync(file, "utf8"));
  strays.push(pid);
  return pid;
};

const gone = (pid: number) =>
  vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 3_000, interval: 20 });

describe("execute_code: a setsid child holding stdout", () => {
  it("does not hold up the timeout, and is killed with the script", async () => {
    h = await createCodeExecHarness({ config: (c) => (c.code_execution.timeout = 1) });
    const pidFile = join(h.root, "grandchild.pid");
    const started = performance.now();
    const r = await h.exec({ code: withSetsidChild(pidFile, "time.sleep(60)") });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `execute_code, 1 s timeout, setsid child holding stdout: returned after ${seconds.toFixed(2)} s`,
    );
    expect(r.status).toBe("timeout");
    expect(r.output).toBe("started\n");
    expect(r.error).toMatch(/exceeded its 1s time limit and was killed/);
    expect(seconds).toBeLessThan(1 + 5);
    await gone(readPid(pidFile));
  });

  it("does not hold up an interrupt", async () => {
    h = await createCodeExecHarness();
    const pidFile = join(h.root, "grandchild.pid");
    const abort = new AbortController();
    const pending = h.exec({ code: withSetsidChild(pidFile, "time.sleep(60)") }, abort.signal);
    await vi.waitFor(() => expect(existsSync(pidFile) && readFileSync(pidFile, "utf8") !== "").toBe(true), {
      timeout: 10_000,
      interval: 20,
    });
    const pid = readPid(pidFile);
    const started = performance.now();
    abort.abort();
    const r = await pending;
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `execute_code interrupt, setsid child holding stdout: returned after ${seconds.toFixed(2)} s`,
    );
    expect(r.status).toBe("interrupted");
    expect(seconds).toBeLessThan(5);
    await gone(pid);
  });

  it("does not hold up a script that ends by itself, and ends with it", async () => {
    h = await createCodeExecHarness();
    const pidFile = join(h.root, "grandchild.pid");
    const r = await h.exec({ code: withSetsidChild(pidFile, "print('done')") });
    expect(r).toMatchObject({ status: "success", output: "started\ndone\n" });
    expect(Number(r.duration_seconds)).toBeLessThan(5);
    await gone(readPid(pidFile));
  });

  it("handles the same child of a JavaScript script", async () => {
    h = await createCodeExecHarness({ config: (c) => (c.code_execution.timeout = 1) });
    const pidFile = join(h.root, "grandchild.pid");
    const r = await h.exec({
      language: "javascript",
      code: [
        'import { spawn } from "node:child_process";',
        'import { writeFileSync } from "node:fs";',
        "const child = spawn('setsid', ['sleep', '30'], { stdio: 'inherit' });",
        `writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));`,
        "console.log('started');",
        "setTimeout(() => {}, 60_000);",
      ].join("\n"),
    });
    expect(r.status).toBe("timeout");
    expect(r.output).toBe("started\n");
    expect(Number(r.duration_seconds)).toBeLessThan(1 + 5);
    await gone(readPid(pidFile));
  });
});
