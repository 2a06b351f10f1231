/**
 * `plugin.yaml`: what a plugin is and what it offers, read at start-up without running any of its
 * code. Tools carry their schemas here so a request can list them before the entry module is ever
 * imported; hooks, commands and prompt sections are declared by name for the same reason.
 */
import { existsSync, readFileSync } from "node:fs";
import { extname, isAbsolute, join, normalize } from "node:path";
import { parse as parseYaml } from "yaml";
import { HOOK_NAMES, type HookName } from "../core/config-defaults.js";
import { isRecord } from "../core/is-record.js";

export const MANIFEST_FILE = "plugin.yaml";

/** Plugin and command names: lowercase, digits, `_` and `-`. */
export const PLUGIN_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Tool names as providers accept them. */
export const TOOL_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

export interface ManifestTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  toolset: string;
}

export interface ManifestCommand {
  name: string;
  description: string;
  /** Usage of its arguments, for help ("<city> [--days N]"). */
  args: string;
}

export interface PluginManifest {
  name: string;
  version: string;
  description: string;
  /** The ES module (compiled JavaScript) whose default export is `register(api)`, relative to the folder. */
  entry: string | undefined;
  tools: ManifestTool[];
  hooks: HookName[];
  commands: ManifestCommand[];
  /** Ids of the system-prompt sections the entry adds (it is imported when a session builds its prompt). */
  promptSections: string[];
}

export type ManifestResult = { manifest: PluginManifest } | { problem: string };

const EMPTY_PARAMETERS = { type: "object", properties: {} };
const JS_ENTRY = new Set([".js", ".mjs"]);
const text = (v: unknown): string =>
  typeof v === "string" ? v.trim() : typeof v === "number" ? String(v) : "";

/** A list field: absent is empty; anything but a list is a problem. */
function listOf(raw: Record<string, unknown>, key: string): unknown[] {
  const v = raw[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Error(`'${key}' must be a list`);
  return v;
}

function parseTool(item: unknown, i: number, plugin: string): ManifestTool {
  if (!isRecord(item))
    throw new Error(`tools item ${i + 1} must be a mapping with name, description, parameters`);
  const name = text(item.name);
  if (!TOOL_NAME_RE.test(name))
    throw new Error(`tools item ${i + 1}: name '${name}' must be 1-64 letters, digits, '_' or '-'`);
  const parameters = item.parameters ?? EMPTY_PARAMETERS;
  if (!isRecord(parameters) || (parameters.type !== undefined && parameters.type !== "object"))
    throw new Error(`tool '${name}': parameters must be a JSON Schema of type object`);
  const toolset = text(item.toolset) || plugin;
  return {
    name,
    description: text(item.description) || `Tool '${name}' of the plugin '${plugin}'.`,
    parameters: { type: "object", ...parameters, properties: parameters.properties ?? {} },
    toolset,
  };
}

function parseCommand(item: unknown, i: number): ManifestCommand {
  const raw = typeof item === "string" ? { name: item } : item;
  if (!isRecord(raw))
    throw new Error(`commands item ${i + 1} must be a name or a mapping with name, description`);
  const name = text(raw.name);
  if (!PLUGIN_NAME_RE.test(name))
    throw new Error(`commands item ${i + 1}: name '${name}' must be lowercase letters, digits, '_' or '-'`);
  return { name, description: text(raw.description), args: text(raw.args) };
}

/** Checks a manifest's fields; throws with the problem in words. */
export function parseManifest(raw: unknown, folderName: string): PluginManifest {
  if (!isRecord(raw)) throw new Error("plugin.yaml must be a mapping of keys");
  const name = text(raw.name) || folderName;
  if (!PLUGIN_NAME_RE.test(name))
    throw new Error(`name '${name}' must be lowercase letters, digits, '_' or '-' (up to 64)`);
  const entry = text(raw.entry) || undefined;
  if (entry !== undefined) {
    if (isAbsolute(entry) || normalize(entry).startsWith(".."))
      throw new Error(`entry '${entry}' must be a file inside the plugin's folder`);
    if (!JS_ENTRY.has(extname(entry)))
      throw new Error(`entry '${entry}' must be compiled JavaScript (.js or .mjs); TypeScript is not loaded`);
  }
  const tools = listOf(raw, "tools").map((t, i) => parseTool(t, i, name));
  const dup = tools.find((t, i) => tools.findIndex((u) => u.name === t.name) !== i);
  if (dup) throw new Error(`tool '${dup.name}' is listed twice`);
  const hooks = listOf(raw, "hooks").map((h) => text(h));
  const unknown = hooks.find((h) => !(HOOK_NAMES as readonly string[]).includes(h));
  if (unknown !== undefined) throw new Error(`'${unknown}' is not a hook (hooks: ${HOOK_NAMES.join(", ")})`);
  const commands = listOf(raw, "commands").map(parseCommand);
  const promptSections = listOf(raw, "prompt_sections")
    .map((s) => text(s))
    .filter(Boolean);
  const offers = tools.length + hooks.length + commands.length + promptSections.length;
  if (offers > 0 && !entry)
    throw new Error("'entry' is missing: the module that registers what the plugin offers");
  return {
    name,
    version: text(raw.version) || "0.0.0",
    description: text(raw.description),
    entry,
    tools,
    hooks: [...new Set(hooks)] as HookName[],
    commands,
    promptSections,
  };
}

/** Reads `<dir>/plugin.yaml`. Never throws: a problem comes back in words. */
export function readManifest(dir: string, folderName: string): ManifestResult {
  const file = join(dir, MANIFEST_FILE);
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, "utf8"));
  } catch (err) {
    return { problem: `cannot read ${MANIFEST_FILE}: ${(err as Error).message.split("\n")[0]}` };
  }
  try {
    const manifest = parseManifest(raw, folderName);
    if (manifest.entry && !existsSync(join(dir, manifest.entry)))
      return { problem: `entry '${manifest.entry}' does not exist` };
    return { manifest };
  } catch (err) {
    return { problem: (err as Error).message };
  }
}
