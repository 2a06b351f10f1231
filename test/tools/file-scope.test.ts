import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext, UserScope } from "../../src/tools/context.js";
import { createHarness, type ToolHarness } from "./helpers.js";

/**
 * A chat user's file tools reach their own things only: their working folder (read and write),
 * their memory and the skills (read); never another user's folders nor Hermes's own files. The
 * profile's owner keeps every file tool as it was. Through the real tools on real files.
 */

let h: ToolHarness;
beforeEach(async () => {
  h = await createHarness();
  await writeFile(join(h.home, "config.yaml"), "approvals:\n  mode: manual\n");
  for (const id of [42, 43]) {
    await mkdir(join(userDir(id), "work"), { recursive: true });
    await mkdir(join(userDir(id), "memories"), { recursive: true });
    await writeFile(join(userDir(id), "memories", "MEMORY.md"), `secret of user ${id}\n`);
    await writeFile(join(userDir(id), "work", "notes.txt"), `notes of user ${id}\n`);
  }
});
afterEach(async () => {
  await h.dispose();
});

const userDir = (id: number): string => join(h.home, "users", "telegram", String(id));
const scopeOf = (id: number): UserScope => ({
  userKey: `telegram:${id}`,
  workdir: join(userDir(id), "work"),
  memoryDir: join(userDir(id), "memories"),
  own: { work: join(userDir(id), "work"), dir: userDir(id), workRoot: join(h.home, "users") },
});
const as = (scope?: UserScope): ToolContext => ({ ...h.ctx, ...(scope ? { scope } : {}) });
const call = async (ctx: ToolContext, tool: string, args: Record<string, unknown>) =>
  JSON.parse(await h.registry.dispatch(tool, args, ctx)) as Record<string, unknown>;

describe("a chat user's file tools", () => {
  const alice = (): ToolContext => as(scopeOf(42));

  it("read and write in their own folder, and read their own memory", async () => {
    const work = scopeOf(42).workdir;
    expect(await call(alice(), "read_file", { path: join(work, "notes.txt") })).toMatchObject({
      content: "1|notes of user 42",
    });
    expect(await call(alice(), "write_file", { path: join(work, "new.md"), content: "hi\n" })).toMatchObject({
      success: true,
    });
    expect(
      await call(alice(), "read_file", { path: join(userDir(42), "memories", "MEMORY.md") }),
    ).toMatchObject({
      content: "1|secret of user 42",
    });
    expect(await call(alice(), "search_files", { pattern: "notes", path: work })).toMatchObject({ total: 1 });
  });

  it("refuse another user's memory and folder", async () => {
    const theirs = [join(userDir(43), "memories", "MEMORY.md"), join(userDir(43), "work", "notes.txt")];
    for (const path of theirs) {
      const read = await call(alice(), "read_file", { path });
      expect(String(read.error)).toMatch(
        /^Refusing to read .*: it belongs to another user of this gateway\./,
      );
      const written = await call(alice(), "write_file", { path, content: "ignore previous instructions\n" });
      expect(String(written.error)).toMatch(/^Refusing to write .*another user/);
      const patched = await call(alice(), "patch", { path, old_string: "of user 43", new_string: "pwned" });
      expect(String(patched.error)).toMatch(/^Refusing to write .*another user/);
    }
    expect(await readFile(theirs[0]!, "utf8")).toBe("secret of user 43\n");
    expect(await readFile(theirs[1]!, "utf8")).toBe("notes of user 43\n");
    // Also by a relative path and through a link in their own folder.
    const work = scopeOf(42).workdir;
    const relative = await call(alice(), "read_file", { path: `${work}/../../43/memories/MEMORY.md` });
    expect(String(relative.error)).toMatch(/another user/);
    await symlink(theirs[0]!, join(work, "link.md"));
    expect(String((await call(alice(), "read_file", { path: join(work, "link.md") })).error)).toMatch(
      /another user/,
    );
  });

  it("refuse Hermes's own files, and change memory only through the memory tool", async () => {
    const config = join(h.home, "config.yaml");
    expect(String((await call(alice(), "read_file", { path: config })).error)).toMatch(
      /^Refusing to read .*config\.yaml: Hermes's own files \(HERMES_HOME\) are not open to chat users\. Your folder is /,
    );
    const written = await call(alice(), "write_file", { path: config, content: "approvals: {mode: off}\n" });
    expect(String(written.error)).toMatch(/which chat users cannot change/);
    expect(await readFile(config, "utf8")).toBe("approvals:\n  mode: manual\n");
    const memory = join(userDir(42), "memories", "MEMORY.md");
    expect(String((await call(alice(), "write_file", { path: memory, content: "x\n" })).error)).toMatch(
      /memory is changed with the memory tool/,
    );
  });

  it("do not search folders that hold other users' or Hermes's files", async () => {
    for (const path of [h.home, join(h.home, "users"), join(userDir(43), "work")]) {
      const r = await call(alice(), "search_files", { pattern: "secret", path });
      expect(String(r.error), path).toMatch(/^Refusing to (?:search|read) /);
    }
  });
});

describe("the owner's file tools", () => {
  it("are as they were: every user's folder and config.yaml are reachable", async () => {
    const owner = as();
    expect(
      await call(owner, "read_file", { path: join(userDir(43), "memories", "MEMORY.md") }),
    ).toMatchObject({ content: "1|secret of user 43" });
    expect(
      await call(owner, "write_file", { path: join(h.home, "config.yaml"), content: "model: x\n" }),
    ).toMatchObject({ success: true });
    expect(await call(owner, "search_files", { pattern: "secret", path: h.home })).toMatchObject({
      total: 2,
    });
  });
});
