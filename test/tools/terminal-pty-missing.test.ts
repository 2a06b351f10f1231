import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createHarness, type ToolHarness } from "./helpers.js";

/** pty=true when @lydell/node-pty cannot load (a platform without a prebuilt binary, say). */

vi.mock("@lydell/node-pty", () => {
  throw new Error("Cannot find module '@lydell/node-pty-linux-x64'");
});

let h: ToolHarness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.dispose();
});

describe("terminal pty=true without @lydell/node-pty", () => {
  it("answers with an error that says PTY is unavailable and why, in the foreground and background", async () => {
    for (const background of [false, true]) {
      const r = await h.call("terminal", { command: "tty", pty: true, background });
      // (vitest words the import failure its own way; the real one names the missing module.)
      expect(String(r.error)).toMatch(
        /^PTY mode is unavailable: the optional package @lydell\/node-pty could not be loaded \(.+\); reinstall .*without pty/,
      );
    }
    // Commands without pty are unaffected.
    expect(await h.call("terminal", { command: "echo fine" })).toMatchObject({
      output: "fine\n",
      exit_code: 0,
    });
  });
});
