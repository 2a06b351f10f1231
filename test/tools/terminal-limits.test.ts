import { open, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createHarness, isAlive, type ToolHarness } from "./helpers.js";

/** Bad input for the terminal tool: floods, binary, processes that refuse to die. */

let h: ToolHarness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.dispose();
});

const run = (args: Record<string, unknown>) => h.call("terminal", args);

async function readAt(path: string, position: number, length: number): Promise<string> {
  const file = await open(path, "r");
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await file.read(buf, 0, length, position);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    await file.close();
  }
}

describe("terminal output limits", () => {
  it("spills the complete output when it outgrows the capture, not just head and tail", async () => {
    const r = await run({ command: "seq 1 200000" });
    expect(r.truncated).toBe(true);
    const path = String(r.full_output_path);
    expect(path.startsWith(join(h.home, "cache", "tool-output"))).toBe(true);
    const expected = `${Array.from({ length: 200_000 }, (_, i) => i + 1).join("\n")}\n`;
    expect(await readFile(path, "utf8")).toBe(expected);
    expect(String(r.output)).toMatch(/bytes of output dropped|omitted/);
    expect(String(r.output).trimEnd().endsWith("199999\n200000")).toBe(true);
  });

  it("cleans ANSI escapes in the spilled file too", async () => {
    const r = await run({
      command: "for i in $(seq 1 40000); do printf '\\033[32mline %s\\033[0m\\n' $i; done",
    });
    const full = await readFile(String(r.full_output_path), "utf8");
    expect(full).not.toContain("\u001b");
    expect(full.startsWith("line 1\nline 2\n")).toBe(true);
    expect(full.endsWith("line 40000\n")).toBe(true);
  });

  it("survives 200 MB of output with bounded memory and a complete spill file", {
    timeout: 180_000,
  }, async () => {
    const line = "x".repeat(99);
    const before = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peak = Math.max(peak, m.heapUsed + m.arrayBuffers - before.heapUsed - before.arrayBuffers);
    }, 20);
    const r = await run({ command: `yes ${line} | head -c 200000000`, timeout: 170 });
    clearInterval(sampler);
    expect(r.exit_code).toBe(0);
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(String(r.output))).toBeLessThan(60_000);
    const path = String(r.full_output_path);
    expect((await stat(path)).size).toBe(200_000_000);
    expect(await readAt(path, 0, 100)).toBe(`${line}\n`);
    expect(await readAt(path, 200_000_000 - 100, 100)).toBe(`${line}\n`);
    // Buffering the output would have cost 200 MB or more.
    expect(peak).toBeLessThan(100 * 1024 * 1024);
  });

  it("turns a binary blast into valid text", async () => {
    const r = await run({ command: "head -c 5000000 /dev/urandom; echo; echo done" });
    expect(r.exit_code).toBe(0);
    const output = String(r.output);
    expect(output).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/);
    expect(output.endsWith("done\n")).toBe(true);
    expect(r.truncated).toBe(true);
    expect((await stat(String(r.full_output_path))).size).toBeGreaterThan(1_000_000);
    // The next command in the same task is unaffected.
    expect(await run({ command: "echo ok" })).toMatchObject({ output: "ok\n", exit_code: 0 });
  });

  it("does not let an unterminated escape string swallow the lines after it", async () => {
    const r = await run({ command: "printf 'junk\\033]0;no end\\nkept\\n\\033Pdcs\\nalso kept\\n'" });
    expect(r.output).toBe("junk\nkept\n\nalso kept\n");
  });

  it("SIGKILLs a process group that ignores SIGTERM, leaving no orphan", async () => {
    const pidFile = join(h.root, "pids");
    const r = await run({
      command: `trap '' TERM; echo $$ > ${pidFile}; sleep 1000 & echo $! >> ${pidFile}; wait`,
      timeout: 1,
    });
    expect(r).toMatchObject({ timed_out: true, exit_code: 124 });
    const pids = (await readFile(pidFile, "utf8")).split(/\s+/).filter(Boolean).map(Number);
    expect(pids).toHaveLength(2);
    await vi.waitFor(() => expect(pids.filter(isAlive)).toEqual([]), { timeout: 10_000, interval: 100 });
  });
});
