import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/temp.js";
import { alive, ROOT, until } from "./support.js";

/** Runs the crash host; resolves to the MCP server's pid and the host's exit code. */
function crashHost(how: string): Promise<{ pid: number; code: number | null }> {
  const child = spawn(process.execPath, [join(ROOT, "test", "fixtures", "mcp", "crash-host.mjs"), how], {
    env: { ...process.env, MCP_LOG_DIR: tempDir("hermes-mcp-crash-") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ pid: Number(out.trim()), code })));
}

describe("MCP server processes never outlive the process that started them", () => {
  it.each([
    ["an uncaught exception", "throw", 1],
    ["an unhandled rejection", "reject", 1],
    ["process.exit", "exit", 7],
  ])("when the host dies by %s", async (_label, how, exitCode) => {
    const { pid, code } = await crashHost(how);
    expect(code).toBe(exitCode);
    expect(pid).toBeGreaterThan(0);
    await until(() => !alive(pid), 5000, `the end of MCP server ${pid}`);
  });
});
