import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DetectOptions, detectCommand } from "../../src/tools/approval/detect.js";
import type { ApprovalRequest } from "../../src/tools/approval/types.js";
import type { ToolContext, UserScope } from "../../src/tools/context.js";
import { FROM_USER_FOLDER_READS, OUT_OF_REACH, WITHIN_REACH } from "../fixtures/chat-user-reads.js";
import { HERMES_HOME, HOME, PROJECT, USER_WORKDIR } from "../fixtures/user-workdir-commands.js";
import { approvingContext, chatUserDir, chatUserScope, runTerminal } from "./chat-user-support.js";
import { createHarness, type ToolHarness } from "./helpers.js";

/**
 * A chat user's commands reach their own folder, their memory, the skills and the rest of the
 * machine, but not another user's folder or memory, the list of users, or Hermes's private
 * files, read or write, however the path is spelled; the profile's owner is not limited.
 */

const USER_DIR = `${HERMES_HOME}/users/telegram/42`;
const CHAT_USER: DetectOptions = {
  cwd: USER_WORKDIR,
  home: HOME,
  hermesHome: HERMES_HOME,
  ownFolder: USER_WORKDIR,
  confine: {
    dir: USER_DIR,
    work: USER_WORKDIR,
    workRoot: `${HERMES_HOME}/users`,
    memoryDir: `${USER_DIR}/memories`,
  },
};
const OWNER: DetectOptions = { cwd: PROJECT, home: HOME, hermesHome: HERMES_HOME };
const scopeKeys = (command: string, opts: DetectOptions): string[] =>
  detectCommand(command, opts)
    .hardline.map((m) => m.key)
    .filter((k) => k === "chat_user_scope");

describe("what a chat user's commands may reach", () => {
  it.each(OUT_OF_REACH)("refuses for a chat user: %s", (command) => {
    expect(scopeKeys(command, CHAT_USER)).toEqual(["chat_user_scope"]);
  });

  it.each(OUT_OF_REACH)("leaves the profile's owner alone: %s", (command) => {
    expect(detectCommand(command, OWNER).hardline).toEqual([]);
  });

  it.each(WITHIN_REACH)("lets the chat user work: %s", (command) => {
    expect(detectCommand(command, CHAT_USER).hardline).toEqual([]);
  });

  it("names what was out of reach", () => {
    const [match] = detectCommand("cat ../../43/memories/MEMORY.md", CHAT_USER).hardline;
    expect(match?.description).toContain("another user's folder");
    expect(match?.description).toContain("$HERMES_HOME/users/telegram/43/memories/MEMORY.md");
    expect(detectCommand("cat ~/.hermes/.env", CHAT_USER).hardline[0]?.description).toContain(
      "Hermes's private files",
    );
  });

  it("reads the profile's memory when memory is shared, and no other user's", () => {
    const shared: DetectOptions = {
      ...CHAT_USER,
      confine: { ...CHAT_USER.confine!, memoryDir: `${HERMES_HOME}/memories` },
    };
    expect(scopeKeys("cat ~/.hermes/memories/MEMORY.md", shared)).toEqual([]);
    expect(scopeKeys("cat ~/.hermes/memories/MEMORY.md", CHAT_USER)).toEqual(["chat_user_scope"]);
    expect(scopeKeys("cat ../../43/memories/MEMORY.md", shared)).toEqual(["chat_user_scope"]);
  });

  it("keeps the other users' folders under gateway.workdir_root out of reach", () => {
    const root = "/srv/hermes-users";
    const work = `${root}/telegram/42`;
    const opts: DetectOptions = {
      ...CHAT_USER,
      cwd: work,
      ownFolder: undefined,
      confine: { dir: USER_DIR, work, workRoot: root, memoryDir: `${USER_DIR}/memories` },
    };
    for (const command of ["cat ../43/notes.txt", "ls /srv/hermes-users/telegram", "grep -r x /srv"])
      expect(scopeKeys(command, opts), command).toEqual(["chat_user_scope"]);
    for (const command of ["cat notes.txt", "grep -r x .", `cat ${USER_DIR}/memories/MEMORY.md`])
      expect(scopeKeys(command, opts), command).toEqual([]);
  });

  it("in a profile, keeps the default profile's files and the other profiles out of reach", () => {
    const profile = `${HERMES_HOME}/profiles/work`;
    const dir = `${profile}/users/telegram/42`;
    const opts: DetectOptions = {
      cwd: `${dir}/work`,
      home: HOME,
      hermesHome: profile,
      ownFolder: `${dir}/work`,
      confine: { dir, work: `${dir}/work`, workRoot: `${profile}/users`, memoryDir: `${dir}/memories` },
    };
    for (const command of [
      "cat ~/.hermes/.env",
      "cat ~/.hermes/profiles/home/auth.json",
      `cat ${profile}/.env`,
    ])
      expect(scopeKeys(command, opts), command).toEqual(["chat_user_scope"]);
    expect(scopeKeys(`cat ${profile}/skills/x/SKILL.md`, opts)).toEqual([]);
  });
});

describe("through the terminal tool", () => {
  let h: ToolHarness;
  let asked: ApprovalRequest[];
  const userDir = (id: number): string => chatUserDir(h, id);
  const scopeOf = (id: number): UserScope => chatUserScope(h, id);
  /** Approvals off and a user who approves anything: a refusal here is one nothing can lift. */
  const ctxWith = (extra: Partial<ToolContext> = {}): ToolContext => approvingContext(h, asked, "off", extra);
  const run = (ctx: ToolContext, args: Record<string, unknown>) => runTerminal(h, ctx, args);

  beforeEach(async () => {
    h = await createHarness();
    asked = [];
    await writeFile(join(h.home, "config.yaml"), "secret_setting: 1\n");
    for (const id of [42, 43]) {
      await mkdir(join(userDir(id), "work"), { recursive: true });
      await mkdir(join(userDir(id), "memories"), { recursive: true });
      await writeFile(join(userDir(id), "memories", "MEMORY.md"), `memory of user ${id}\n`);
    }
    await symlink(join(userDir(43), "memories", "MEMORY.md"), join(userDir(42), "work", "theirs.md"));
  });
  afterEach(async () => {
    await h.dispose();
  });

  it.each(FROM_USER_FOLDER_READS)("refuses user 42, even with approvals off: %s", async (command) => {
    const r = await run(ctxWith({ scope: scopeOf(42) }), { command, workdir: scopeOf(42).workdir });
    expect(r.blocked).toBe("hardline");
    expect(String(r.error)).toContain(`your own folder (${scopeOf(42).workdir})`);
    expect(JSON.stringify(r)).not.toContain("memory of user 43");
    expect(JSON.stringify(r)).not.toContain("secret_setting");
    expect(asked).toEqual([]);
  });

  it("lets user 42 read their own memory and work in their folder", async () => {
    const ctx = ctxWith({ scope: scopeOf(42) });
    const r = await run(ctx, { command: "cat ../memories/MEMORY.md && ls", workdir: scopeOf(42).workdir });
    expect(r.exit_code).toBe(0);
    expect(String(r.output)).toContain("memory of user 42");
    expect(String(r.output)).toContain("theirs.md");
  });

  it("refuses a working folder that is another user's", async () => {
    const r = await run(ctxWith({ scope: scopeOf(42) }), { command: "ls", workdir: scopeOf(43).workdir });
    expect(r.blocked).toBe("hardline");
  });

  it("lets the profile's owner read them as before", async () => {
    const r = await run(ctxWith(), {
      command: "cat ../../43/memories/MEMORY.md",
      workdir: scopeOf(42).workdir,
    });
    expect(r.exit_code).toBe(0);
    expect(String(r.output)).toContain("memory of user 43");
    expect(await readFile(join(userDir(43), "memories", "MEMORY.md"), "utf8")).toBe("memory of user 43\n");
  });
});
