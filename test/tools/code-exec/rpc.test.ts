import { mkdtemp, rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findPython } from "../../../src/tools/builtin/code-exec/env.js";
import { OutputCapture } from "../../../src/tools/builtin/code-exec/limits.js";
import { type RpcServer, startRpcServer } from "../../../src/tools/builtin/code-exec/rpc-server.js";
import { runScript } from "../../../src/tools/builtin/code-exec/run.js";
import { sandboxArgs, stubSpec } from "../../../src/tools/builtin/code-exec/sandbox-tools.js";

let server: RpcServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

/** Sends raw lines on one connection and collects `count` reply lines. */
async function exchange(
  path: string,
  payload: string | string[],
  count: number,
): Promise<Record<string, unknown>[]> {
  const sock = createConnection(path);
  sock.setEncoding("utf8");
  let buf = "";
  return new Promise((resolve, reject) => {
    sock.on("error", reject);
    sock.on("data", (d: string) => {
      buf += d;
      const lines = buf.split("\n").filter(Boolean);
      if (lines.length >= count) {
        sock.destroy();
        resolve(lines.map((l) => JSON.parse(l) as Record<string, unknown>));
      }
    });
    const parts = typeof payload === "string" ? [payload] : payload;
    parts.forEach((part, i) => {
      setTimeout(() => sock.write(part), i * 20);
    });
  });
}

describe("RPC server", () => {
  it("answers pipelined requests as they finish, each with its own id", async () => {
    dir = await mkdtemp(join(tmpdir(), "hermes-rpc-test-"));
    const path = join(dir, "s.sock");
    server = await startRpcServer(path, async (tool, args) => {
      await new Promise((r) => setTimeout(r, Number(args.wait)));
      return { result: `${tool}:${String(args.wait)}` };
    });
    const req = (id: number, wait: number) => `${JSON.stringify({ id, tool: "t", args: { wait } })}\n`;
    // Sent in two writes that split a request mid-line.
    const all = req(1, 150) + req(2, 80) + req(3, 10);
    const replies = await exchange(path, [all.slice(0, 30), all.slice(30)], 3);
    expect(replies).toEqual([
      { id: 3, result: "t:10" },
      { id: 2, result: "t:80" },
      { id: 1, result: "t:150" },
    ]);
  });

  it("refuses malformed requests with an error instead of dropping the connection", async () => {
    dir = await mkdtemp(join(tmpdir(), "hermes-rpc-test-"));
    const path = join(dir, "s.sock");
    server = await startRpcServer(path, async () => ({ result: "ok" }));
    const replies = await exchange(
      path,
      '{not json\n{"id": 7, "tool": "x", "args": [1]}\n{"id": 8}\n{"id": 9, "tool": "x"}\n',
      4,
    );
    expect(replies).toEqual([
      { id: null, error: "request is not valid JSON" },
      { id: 7, error: "args must be an object of keyword arguments" },
      { id: 8, error: "request needs a tool name" },
      { id: 9, result: "ok" },
    ]);
  });
});

describe("code-exec pieces", () => {
  it("keeps small output whole and cuts big output to head and tail with a marker", () => {
    const small = new OutputCapture(100, "stdout");
    small.push(Buffer.from("hello"));
    expect(small.text()).toBe("hello");
    const big = new OutputCapture(100, "stdout");
    for (let i = 0; i < 50; i++) big.push(Buffer.from(`${String(i).padStart(3, "0")}-`));
    const text = big.text();
    expect(text.startsWith("000-001-")).toBe(true);
    expect(text.endsWith("048-049-")).toBe(true);
    expect(text).toContain("[... 100 bytes of stdout cut");
    expect(big.bytes).toBe(200);
  });

  it("gives terminal only its foreground arguments", () => {
    const spec = stubSpec("terminal", {
      description: "",
      parameters: {
        type: "object",
        properties: { command: {}, background: {}, timeout: {}, workdir: {}, pty: {} },
        required: ["command"],
      },
    });
    expect(spec.params.map((p) => p.name)).toEqual(["command", "timeout", "workdir"]);
    expect(
      sandboxArgs("terminal", { command: "ls", background: true, pty: true, watch_patterns: ["x"] }),
    ).toEqual({
      command: "ls",
    });
    expect(sandboxArgs("patch", { path: "a", replace_all: true })).toEqual({ path: "a", replace_all: true });
  });

  it("hands a non-JSON tool result to the script as a string and a JSON one as a dict", async () => {
    const python = findPython("strict");
    if (!python) throw new Error("python3 is required for these tests");
    const outcome = await runScript({
      language: "python",
      code: "from hermes_tools import echo\nprint(repr(echo('plain text')), repr(echo('{\"a\": [1]}')))",
      interpreter: python,
      env: (socket) => ({ PATH: process.env.PATH ?? "", HERMES_RPC_SOCKET: socket }),
      tools: [{ name: "echo", params: [{ name: "text", required: true }] }],
      callTool: async (_name, args) => String(args.text),
      refuse: () => "no",
      maxToolCalls: 5,
      timeoutMs: 20_000,
    });
    expect(outcome.output).toBe("'plain text' {'a': [1]}\n");
  });
});
