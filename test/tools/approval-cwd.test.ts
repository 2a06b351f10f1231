import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../src/tools/approval/types.js";
import type { ToolContext, UserScope } from "../../src/tools/context.js";
import {
  FROM_BASE_TO_CONFIG,
  FROM_USER_FOLDER,
  FROM_WORK_TO_CONFIG,
  THROUGH_LINK,
} from "../fixtures/approval-cwd-commands.js";
import { approvingContext, chatUserDir, chatUserScope, runTerminal } from "./chat-user-support.js";
import { createHarness, type ToolHarness } from "./helpers.js";

/**
 * The approval gate reads a command's paths from the folder it runs in: relative paths and `cd ..`
 * that lead into HERMES_HOME, symbolic links, the terminal's `workdir`, and a chat user's own
 * folder inside HERMES_HOME (theirs to change, nothing around it). Through the real terminal tool.
 */

const CONFIG = "approvals:\n  mode: manual\n";

let h: ToolHarness;
let asked: ApprovalRequest[];
let base: string;
beforeEach(async () => {
  h = await createHarness();
  base = dirname(h.root);
  asked = [];
  await writeFile(join(h.home, "config.yaml"), CONFIG);
});
afterEach(async () => {
  await h.dispose();
});

/** A context that would ask (and approve) anything that needs approval: a hardline block is never asked. */
const ctxWith = (extra: Partial<ToolContext> = {}): ToolContext =>
  approvingContext(h, asked, "manual", extra);
const run = (ctx: ToolContext, args: Record<string, unknown>) => runTerminal(h, ctx, args);
const config = (): Promise<string> => readFile(join(h.home, "config.yaml"), "utf8");

describe("the approval gate, where the command runs", () => {
  it.each(FROM_WORK_TO_CONFIG)("stops a relative way into HERMES_HOME: %s", async (command) => {
    const r = await run(ctxWith(), { command });
    expect(r.blocked).toBe("hardline");
    expect(asked).toEqual([]);
    expect(await config()).toBe(CONFIG);
  });

  it("reads relative paths from the call's workdir", async () => {
    const r = await run(ctxWith(), { command: FROM_BASE_TO_CONFIG, workdir: base });
    expect(r.blocked).toBe("hardline");
    expect(await config()).toBe(CONFIG);
  });

  it("follows a symbolic link to where it leads", async () => {
    await symlink(join(h.home, "config.yaml"), join(h.root, "link.yaml"));
    const r = await run(ctxWith(), { command: THROUGH_LINK });
    expect(r.blocked).toBe("hardline");
    expect(await config()).toBe(CONFIG);
  });
});

describe("a chat user's own folder in HERMES_HOME", () => {
  const userDir = (id: number): string => chatUserDir(h, id);
  const scopeOf = (id: number): UserScope => chatUserScope(h, id);

  beforeEach(async () => {
    for (const id of [42, 43]) {
      await mkdir(join(userDir(id), "work"), { recursive: true });
      await mkdir(join(userDir(id), "memories"), { recursive: true });
      await writeFile(join(userDir(id), "memories", "MEMORY.md"), `user ${id}\n`);
    }
  });

  it("is theirs to work in, without a prompt", async () => {
    const ctx = ctxWith({ scope: scopeOf(42) });
    const work = scopeOf(42).workdir;
    const r = await run(ctx, {
      command: "mkdir -p notes && echo made > notes/made.txt && pwd",
      workdir: work,
    });
    expect(r.exit_code).toBe(0);
    expect(String(r.output).trim()).toBe(work);
    expect(await readFile(join(work, "notes", "made.txt"), "utf8")).toBe("made\n");
    // A link that stays in the folder is as good as the file.
    await symlink(join(work, "notes"), join(work, "alias"));
    const linked = await run(ctx, { command: "echo again > alias/made.txt", workdir: work });
    expect(linked.exit_code).toBe(0);
    expect(await readFile(join(work, "notes", "made.txt"), "utf8")).toBe("again\n");
    expect(asked).toEqual([]);
  });

  it("stops every way out of it into HERMES_HOME", async () => {
    const ctx = ctxWith({ scope: scopeOf(42) });
    await symlink(join(userDir(43), "memories", "MEMORY.md"), join(scopeOf(42).workdir, "theirs.md"));
    for (const command of FROM_USER_FOLDER) {
      const r = await run(ctx, { command, workdir: scopeOf(42).workdir });
      expect(r.blocked, command).toBe("hardline");
    }
    expect(asked).toEqual([]);
    expect(await readFile(join(userDir(43), "memories", "MEMORY.md"), "utf8")).toBe("user 43\n");
    expect(await readFile(join(userDir(42), "memories", "MEMORY.md"), "utf8")).toBe("user 42\n");
    expect(await config()).toBe(CONFIG);
  });

  it("is not another user's to change", async () => {
    const ctx = ctxWith({ scope: scopeOf(43) });
    const r = await run(ctx, { command: "echo x > planted.txt", workdir: scopeOf(42).workdir });
    expect(r.blocked).toBe("hardline");
    expect(existsSync(join(scopeOf(42).workdir, "planted.txt"))).toBe(false);
  });
});
