import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { ArchiveError, extractTarGz } from "../../src/skills/install-tar.js";
import { makeTarGz, treeOf } from "./install-support.js";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "tar-"));
  temps.push(dir);
  return dir;
}

describe("extractTarGz", () => {
  it("extracts files and folders, long names included, and keeps only the executable bit", () => {
    const root = temp();
    const dest = join(root, "out");
    const long = `deep/${"d".repeat(60)}/${"e".repeat(60)}/notes.md`;
    const r = extractTarGz(
      makeTarGz([
        { path: "pkg/", type: "dir" },
        { path: "pkg/SKILL.md", content: "---\nname: x\n---\n" },
        { path: "pkg/scripts/run.sh", content: "#!/bin/sh\necho hi\n", mode: 0o4755 },
        { path: `pkg/${long}`, content: "long" },
      ]),
      dest,
    );
    expect(r).toEqual({ files: 3, skipped: [] });
    expect(readFileSync(join(dest, "pkg", long), "utf8")).toBe("long");
    expect(statSync(join(dest, "pkg/scripts/run.sh")).mode & 0o7777).toBe(0o755);
    expect(statSync(join(dest, "pkg/SKILL.md")).mode & 0o777).toBe(0o644);
  });

  it.each([
    ["../evil.md", /climbs out/],
    ["pkg/../../evil.md", /climbs out/],
    ["/etc/evil.md", /absolute path/],
    ["C:/evil.md", /absolute path/],
    ["pkg\\..\\evil.md", /not allowed/],
  ])("refuses the whole archive for the entry %s and writes nothing outside", (path, message) => {
    const root = temp();
    const dest = join(root, "out");
    const archive = makeTarGz([
      { path: "pkg/SKILL.md", content: "ok" },
      { path, content: "payload" },
    ]);
    expect(() => extractTarGz(archive, dest)).toThrow(ArchiveError);
    expect(() => extractTarGz(archive, join(root, "again"))).toThrow(message);
    expect(treeOf(root).filter((p) => p.includes("evil"))).toEqual([]);
  });

  it("never creates links or devices, and reports them", () => {
    const dest = join(temp(), "out");
    const r = extractTarGz(
      makeTarGz([
        { path: "pkg/SKILL.md", content: "ok" },
        { path: "pkg/passwd", type: "symlink", linkTarget: "/etc/passwd" },
        { path: "pkg/alias.md", type: "hardlink", linkTarget: "pkg/SKILL.md" },
        { path: "pkg/pipe", type: "fifo" },
        // A file written "through" the link lands in a plain folder of that name, not at the target.
        { path: "pkg/passwd/x", content: "y" },
      ]),
      dest,
    );
    expect(r.skipped).toEqual([
      { path: "pkg/passwd", kind: "symlink", target: "/etc/passwd" },
      { path: "pkg/alias.md", kind: "hardlink", target: "pkg/SKILL.md" },
      { path: "pkg/pipe", kind: "special" },
    ]);
    expect(treeOf(dest)).toEqual(["pkg", "pkg/SKILL.md", "pkg/passwd", "pkg/passwd/x"]);
    expect(statSync(join(dest, "pkg/passwd")).isDirectory()).toBe(true);
  });

  it("refuses archives past the size and entry limits, truncated ones and non-gzip data", () => {
    const big = makeTarGz([{ path: "a", content: Buffer.alloc(4096) }]);
    expect(() => extractTarGz(big, join(temp(), "o"), { maxBytes: 2048, maxEntries: 10 })).toThrow(
      /larger than/,
    );
    const many = makeTarGz(Array.from({ length: 5 }, (_, i) => ({ path: `f${i}`, content: "x" })));
    expect(() => extractTarGz(many, join(temp(), "o"), { maxBytes: 1 << 20, maxEntries: 3 })).toThrow(
      /more than 3/,
    );
    const tar = gunzipSync(makeTarGz([{ path: "a", content: Buffer.alloc(2000) }]));
    const truncated = gzipSync(tar.subarray(0, 1024));
    expect(() => extractTarGz(truncated, join(temp(), "o"))).toThrow(/truncated/);
    expect(() => extractTarGz(Buffer.from("plain text"), join(temp(), "o"))).toThrow(/not a gzip file/);
  });
});
