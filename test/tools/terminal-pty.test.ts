import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadPty, PtyUnavailableError } from "../../src/tools/environments/pty.js";
import { findExecutable } from "../../src/tools/environments/shell-state.js";
import { skipBecause } from "../support/skip.js";
import { createHarness, isAlive, type ToolHarness } from "./helpers.js";

/** pty=true with real pseudo-terminals from @lydell/node-pty. */

const pty = await loadPty();
const ptyMissing = pty instanceof PtyUnavailableError ? pty.message : undefined;
const python = findExecutable("python3");
const noPython = skipBecause("python input() on a PTY", !python && "python3 is not on PATH");

let h: ToolHarness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.dispose();
});

const run = (args: Record<string, unknown>) => h.call("terminal", args);
const proc = (args: Record<string, unknown>) => h.call("process", args);

describe.skipIf(skipBecause("terminal pty=true", ptyMissing))(`terminal pty=true ${ptyMissing ?? ""}`, () => {
  it("runs the command on a terminal and keeps the task's shell state", async () => {
    await run({ command: "mkdir -p sub && cd sub && export IN_PTY=yes" });
    const r = await run({
      command:
        'if [ -t 0 ] && [ -t 1 ]; then echo "tty $(tput cols 2>/dev/null || stty size)"; fi; echo "$IN_PTY $PWD"; exit 3',
      pty: true,
    });
    expect(r.exit_code).toBe(3);
    expect(String(r.output)).toMatch(/^tty (120|40 120)\n/);
    expect(String(r.output)).toContain(`yes ${join(h.root, "sub")}`);
    expect(String(r.output)).not.toContain("\r");
    // State written in a PTY command carries over to pipe commands.
    await run({ command: "cd .. && export FROM_PTY=1", pty: true });
    expect((await run({ command: 'echo "$FROM_PTY $PWD"' })).output).toBe(`1 ${h.root}\n`);
  });

  it("kills a PTY program that waits for input past the timeout", async () => {
    const pidFile = join(h.root, "pid");
    const r = await run({
      command: `echo $$ > ${pidFile}; read -p "name? " n; echo "hi $n"`,
      pty: true,
      timeout: 1,
    });
    expect(r).toMatchObject({ timed_out: true, exit_code: 124 });
    expect(String(r.output)).toContain("name? ");
    const pid = Number((await readFile(pidFile, "utf8")).trim());
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 10_000, interval: 100 });
  });

  it("answers an interactive prompt of a background PTY process with submit", async () => {
    const started = await run({
      command: 'read -p "name? " n; echo "hi $n on $TERM"',
      pty: true,
      background: true,
    });
    const id = String(started.session_id);
    await vi.waitFor(
      async () =>
        expect(String((await proc({ action: "poll", session_id: id })).output_tail)).toContain("name?"),
      {
        timeout: 10_000,
        interval: 50,
      },
    );
    expect(await proc({ action: "submit", session_id: id, data: "world" })).toMatchObject({
      bytes_written: 6,
    });
    const done = await proc({ action: "wait", session_id: id, timeout: 20 });
    expect(done).toMatchObject({ status: "exited", exit_code: 0 });
    expect(String(done.output_tail)).toContain("hi world on xterm-256color");
  });

  it.skipIf(noPython)("feeds python's input() through write and close", async () => {
    const started = await run({
      command: `python3 -c "import sys; a = input('first? '); b = sys.stdin.read(); print('got', a, repr(b))"`,
      pty: true,
      background: true,
    });
    const id = String(started.session_id);
    await vi.waitFor(
      async () => expect(String((await proc({ action: "log", session_id: id })).output)).toContain("first?"),
      {
        timeout: 10_000,
        interval: 50,
      },
    );
    await proc({ action: "submit", session_id: id, data: "one" });
    await proc({ action: "write", session_id: id, data: "rest\r" });
    await proc({ action: "close", session_id: id });
    const done = await proc({ action: "wait", session_id: id, timeout: 20 });
    expect(done).toMatchObject({ status: "exited", exit_code: 0 });
    expect(String(done.output_tail)).toContain("got one 'rest\\n'");
  });
});
