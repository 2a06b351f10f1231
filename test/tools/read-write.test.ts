import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type ToolHarness } from "./helpers.js";

let h: ToolHarness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.dispose();
});

const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

describe("read_file", () => {
  it("returns LINE|content lines with paging metadata", async () => {
    await writeFile(join(h.root, "a.txt"), `${numbered(3)}\n`);
    const r = await h.call("read_file", { path: "a.txt" });
    expect(r).toEqual({
      content: "1|line 1\n2|line 2\n3|line 3",
      path: join(h.root, "a.txt"),
      total_lines: 3,
      offset: 1,
      lines_returned: 3,
    });
  });

  it("pages with offset/limit and sets next_offset only while lines remain", async () => {
    await writeFile(join(h.root, "big.txt"), numbered(1200));
    const first = await h.call("read_file", { path: "big.txt" });
    expect(first).toMatchObject({ total_lines: 1200, lines_returned: 500, next_offset: 501 });
    const mid = await h.call("read_file", { path: "big.txt", offset: 1000, limit: 150 });
    expect(String(mid.content).split("\n")[0]).toBe("1000|line 1000");
    expect(mid).toMatchObject({ lines_returned: 150, next_offset: 1150 });
    const last = await h.call("read_file", { path: "big.txt", offset: "1150", limit: 9999 });
    expect(last).toMatchObject({ lines_returned: 51 });
    expect(last).not.toHaveProperty("next_offset");
    const past = await h.call("read_file", { path: "big.txt", offset: 5000 });
    expect(String(past.error)).toMatch(/past the end.*1200 lines/);
  });

  it("cuts very long lines with a marker", async () => {
    await writeFile(join(h.root, "long.txt"), `${"x".repeat(5000)}\nshort\n`);
    const r = await h.call("read_file", { path: "long.txt" });
    const [first, second] = String(r.content).split("\n");
    expect(first).toBe(`1|${"x".repeat(2000)} [... 3000 more chars cut]`);
    expect(second).toBe("2|short");
  });

  it("pages a 2 MB file instead of returning it whole", async () => {
    const line = "abcdefghij".repeat(10);
    await writeFile(join(h.root, "huge.log"), `${Array.from({ length: 21_000 }, () => line).join("\n")}\n`);
    const raw = await h.registry.dispatch("read_file", { path: "huge.log", limit: 2000 }, h.ctx);
    expect(raw.length).toBeLessThanOrEqual(h.ctx.config.file_read_max_chars);
    const r = JSON.parse(raw) as Record<string, unknown>;
    expect(r.total_lines).toBe(21_000);
    expect(Number(r.lines_returned)).toBeLessThan(2000);
    expect(r.next_offset).toBe(Number(r.lines_returned) + 1);
  });

  it("suggests similar names for a missing file", async () => {
    await mkdir(join(h.root, "src"));
    for (const f of ["config.yaml", "Config.json", "configure.sh", "unrelated.md"]) {
      await writeFile(join(h.root, "src", f), "x");
    }
    const r = await h.call("read_file", { path: "src/config.yml" });
    const err = String(r.error);
    expect(err).toMatch(/File not found/);
    expect(err).toContain("Did you mean: src/config.yaml");
    expect(err).toContain("src/Config.json");
    expect(err).not.toContain("unrelated.md");
    const noDir = await h.call("read_file", { path: "nowhere/x.txt" });
    expect(String(noDir.error)).toMatch(/does not exist either/);
  });

  it("refuses directories and binary files with a useful hint", async () => {
    await mkdir(join(h.root, "dir"));
    expect(String((await h.call("read_file", { path: "dir" })).error)).toMatch(/directory.*search_files/);
    await writeFile(join(h.root, "blob.dat"), Buffer.from([1, 2, 0, 3, 4]));
    expect(String((await h.call("read_file", { path: "blob.dat" })).error)).toMatch(/binary file .*5 B/);
    await writeFile(join(h.root, "pic.png"), "not really a png");
    expect(String((await h.call("read_file", { path: "pic.png" })).error)).toMatch(
      /binary file \(image.*vision_analyze/,
    );
  });

  it("reports an empty file without error and expands ~", async () => {
    await writeFile(join(h.root, "empty.txt"), "");
    expect(await h.call("read_file", { path: "empty.txt" })).toMatchObject({ total_lines: 0, content: "" });
    await writeFile(join(h.userHome, "notes.md"), "home\n");
    expect((await h.call("read_file", { path: "~/notes.md" })).content).toBe("1|home");
  });
});

describe("write_file", () => {
  it("creates parent directories and reports bytes and lines", async () => {
    const r = await h.call("write_file", { path: "deep/er/file.txt", content: "a\nb\nc\n" });
    expect(r).toEqual({ success: true, path: join(h.root, "deep/er/file.txt"), bytes_written: 6, lines: 3 });
    expect(await readFile(join(h.root, "deep/er/file.txt"), "utf8")).toBe("a\nb\nc\n");
    await h.call("write_file", { path: "deep/er/file.txt", content: "é" });
    expect(await readFile(join(h.root, "deep/er/file.txt"), "utf8")).toBe("é");
  });

  it("follows the task cwd after a terminal cd", async () => {
    await mkdir(join(h.root, "proj"));
    await h.call("terminal", { command: "cd proj" });
    await h.call("write_file", { path: "x.txt", content: "in proj" });
    expect(await readFile(join(h.root, "proj", "x.txt"), "utf8")).toBe("in proj");
  });

  it("refuses credential locations, including through a symlink", async () => {
    const ssh = await h.call("write_file", { path: "~/.ssh/authorized_keys", content: "ssh-rsa AAA" });
    expect(String(ssh.error)).toMatch(/Refusing to write .*\.ssh/);
    const env = await h.call("write_file", { path: join(h.home, ".env"), content: "X=1" });
    expect(String(env.error)).toMatch(/Refusing/);
    const auth = await h.call("write_file", { path: join(h.home, "auth.json"), content: "{}" });
    expect(String(auth.error)).toMatch(/Refusing/);
    await mkdir(join(h.userHome, ".ssh"));
    await symlink(join(h.userHome, ".ssh"), join(h.root, "innocent"));
    const viaLink = await h.call("write_file", { path: "innocent/authorized_keys", content: "x" });
    expect(String(viaLink.error)).toMatch(/Refusing/);
  });

  it("writes a JSON object sent as content as formatted JSON", async () => {
    const r = await h.call("write_file", { path: "cfg.json", content: { a: 1 } });
    expect(r.success).toBe(true);
    expect(await readFile(join(h.root, "cfg.json"), "utf8")).toBe('{\n  "a": 1\n}\n');
  });

  it("requires content and refuses writing over a directory", async () => {
    expect(String((await h.call("write_file", { path: "x.txt" })).error)).toMatch(/'content' is required/);
    await mkdir(join(h.root, "d"));
    expect(String((await h.call("write_file", { path: "d", content: "x" })).error)).toMatch(/is a directory/);
  });
});
