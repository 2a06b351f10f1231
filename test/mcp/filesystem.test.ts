import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/temp.js";
import { FILESYSTEM, server, startManager, textOf } from "./support.js";

describe("server-filesystem over stdio", () => {
  const start = async () => {
    const root = tempDir("hermes-mcp-fs-");
    const allowed = join(root, "allowed");
    mkdirSync(allowed);
    writeFileSync(join(allowed, "notes.txt"), "first line\nsecond line\n");
    writeFileSync(join(root, "outside.txt"), "private");
    const h = startManager([server("fs", { command: process.execPath, args: [FILESYSTEM, allowed] })]);
    await h.waitFor((e) => e.kind === "connected");
    return { h, root, allowed };
  };

  it("lists its tools and reads, writes and lists files inside the allowed folder", async () => {
    const { h, allowed } = await start();
    expect(h.registry.toolsInToolset("mcp-fs")).toEqual(
      expect.arrayContaining(["mcp_fs_read_text_file", "mcp_fs_write_file", "mcp_fs_list_directory"]),
    );
    expect(textOf(await h.call("mcp_fs_read_text_file", { path: join(allowed, "notes.txt") }))).toBe(
      "first line\nsecond line\n",
    );
    const written = await h.call("mcp_fs_write_file", {
      path: join(allowed, "new.md"),
      content: "# made by MCP\n",
    });
    expect(written.isError).toBeUndefined();
    expect(readFileSync(join(allowed, "new.md"), "utf8")).toBe("# made by MCP\n");
    const listing = textOf(await h.call("mcp_fs_list_directory", { path: allowed }));
    expect(listing).toContain("[FILE] new.md");
    expect(listing).toContain("[FILE] notes.txt");
  });

  it("returns the server's refusal of a path outside the allowed folder as an error result", async () => {
    const { h, root } = await start();
    const r = await h.call("mcp_fs_read_text_file", { path: join(root, "outside.txt") });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Access denied|outside allowed/i);
    expect(textOf(r)).not.toContain("private");
  });
});
