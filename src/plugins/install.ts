/**
 * Installing and removing user plugins. Installing copies files and checks the manifest; it never
 * runs the plugin's code, and the plugin stays off until enabled.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { PLUGIN_NAME_RE, type PluginManifest, readManifest } from "./manifest.js";

const GIT_URL = /^(https?:\/\/|git@|ssh:\/\/|git:\/\/|file:\/\/)|\.git$/;

export interface InstallResult {
  manifest: PluginManifest;
  dir: string;
}

/** Copies a plugin folder, or clones a git repository, into `<root>/<name>`. Throws with the reason. */
export function installPlugin(root: string, source: string, opts: { force?: boolean } = {}): InstallResult {
  const staging = mkdtempSync(join(tmpdir(), "hermes-plugin-"));
  try {
    const fetched = join(staging, "plugin");
    if (existsSync(source)) {
      cpSync(resolve(source), fetched, { recursive: true, filter: (src) => basename(src) !== ".git" });
    } else if (GIT_URL.test(source)) {
      try {
        execFileSync("git", ["clone", "--depth", "1", "--quiet", source, fetched], {
          stdio: ["ignore", "ignore", "pipe"],
          timeout: 120_000,
        });
      } catch (err) {
        const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
        throw new Error(`git clone failed${stderr ? `: ${stderr.split("\n").at(-1)}` : ""}`);
      }
      rmSync(join(fetched, ".git"), { recursive: true, force: true });
    } else {
      throw new Error(`'${source}' is neither a folder nor a git URL`);
    }
    const read = readManifest(fetched, basename(resolve(source)).replace(/\.git$/, ""));
    if ("problem" in read) throw new Error(`not a usable plugin: ${read.problem}`);
    const dir = join(root, read.manifest.name);
    if (existsSync(dir)) {
      if (!opts.force)
        throw new Error(`a plugin named '${read.manifest.name}' is installed already (--force replaces it)`);
      rmSync(dir, { recursive: true, force: true });
    }
    mkdirSync(root, { recursive: true });
    renameOrCopy(fetched, dir);
    return { manifest: read.manifest, dir };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Moves a folder, copying when it crosses filesystems (the temp folder is often elsewhere). */
function renameOrCopy(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch {
    cpSync(from, to, { recursive: true });
  }
}

/** Deletes `<root>/<name>`; false when there is no such plugin folder. */
export function removePlugin(root: string, name: string): boolean {
  if (!PLUGIN_NAME_RE.test(name)) return false;
  const dir = join(root, name);
  if (!existsSync(join(dir, "plugin.yaml"))) return false;
  rmSync(dir, { recursive: true, force: true });
  return true;
}
