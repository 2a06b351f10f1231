import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { installPlugin, removePlugin } from "../../src/plugins/install.js";
import { createPluginScaffold } from "../../src/plugins/scaffold.js";
import { tempDir } from "../support/temp.js";
import { writePlugin } from "./support.js";

const MANIFEST = "name: notes\nversion: 0.3.0\nentry: main.js\ntools: [{name: notes_add}]\n";

describe("installing plugins", () => {
  it("copies a folder under the manifest's name, without its .git, and refuses a second copy unless forced", () => {
    const src = writePlugin(tempDir("hermes-src-"), "checkout", MANIFEST, {
      "main.js": "export default () => {};\n",
      ".git/HEAD": "x",
    });
    const root = join(tempDir("hermes-home-"), "plugins");
    const { manifest, dir } = installPlugin(root, src);
    expect(manifest.name).toBe("notes");
    expect(dir).toBe(join(root, "notes"));
    expect(readFileSync(join(dir, "main.js"), "utf8")).toBe("export default () => {};\n");
    expect(existsSync(join(dir, ".git"))).toBe(false);
    expect(() => installPlugin(root, src)).toThrow(
      "a plugin named 'notes' is installed already (--force replaces it)",
    );
    expect(installPlugin(root, src, { force: true }).dir).toBe(dir);
  });

  it("clones a git URL", () => {
    const repo = writePlugin(tempDir("hermes-repo-"), "notes-repo", MANIFEST, {
      "main.js": "export default () => {};\n",
    });
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "plugin");
    const root = join(tempDir("hermes-home-"), "plugins");
    const { dir } = installPlugin(root, `file://${repo}`);
    expect(existsSync(join(dir, "plugin.yaml"))).toBe(true);
    expect(existsSync(join(dir, ".git"))).toBe(false);
  });

  it("refuses what is not a usable plugin, leaving nothing behind", () => {
    const src = writePlugin(tempDir("hermes-src-"), "bad", "name: bad\nentry: main.ts\ntools: [{name: a}]\n");
    const root = join(tempDir("hermes-home-"), "plugins");
    expect(() => installPlugin(root, src)).toThrow(
      /^not a usable plugin: entry 'main.ts' must be compiled JavaScript/,
    );
    expect(existsSync(join(root, "bad"))).toBe(false);
    expect(() => installPlugin(root, "no/such/folder")).toThrow(
      "'no/such/folder' is neither a folder nor a git URL",
    );
  });

  it("removes a plugin folder by name, and nothing else", () => {
    const root = tempDir("hermes-plugins-");
    const dir = createPluginScaffold(root, "demo");
    expect(removePlugin(root, "../demo")).toBe(false);
    expect(removePlugin(root, "other")).toBe(false);
    expect(removePlugin(root, "demo")).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });

  it("a scaffold refuses a bad name or a folder that exists", () => {
    const root = tempDir("hermes-plugins-");
    expect(() => createPluginScaffold(root, "My Plugin")).toThrow(/not a plugin name/);
    createPluginScaffold(root, "demo");
    expect(() => createPluginScaffold(root, "demo")).toThrow(/already exists/);
  });
});
