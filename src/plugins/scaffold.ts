/**
 * `hermes plugins create NAME`: a small plugin that works as written and shows each part of the
 * contract: a manifest listing a tool and a hook, an entry that registers them, and a test that
 * runs with `node --test` in the plugin's folder, without Hermes.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PLUGIN_NAME_RE } from "./manifest.js";

/** The files of a new plugin, by name (relative to its folder). */
export function scaffoldFiles(name: string): Record<string, string> {
  const id = name.replace(/-/g, "_");
  const tool = `${id}_word_count`;
  return {
    "plugin.yaml": `name: ${name}
version: 0.1.0
description: Counts words, and records every tool call in tool-calls.jsonl.
entry: index.mjs
# Tools are listed with their schemas: requests show them before index.mjs is ever imported.
tools:
  - name: ${tool}
    description: Count the words and characters of a text.
    parameters:
      type: object
      properties:
        text:
          type: string
          description: The text to count.
      required: [text]
# Hooks this plugin registers: the first firing imports index.mjs.
hooks:
  - post_tool_call
`,
    "index.mjs": `// The ${name} plugin. Hermes imports this module the first time ${tool} is called or a
// post_tool_call hook fires, then calls register(api) once. Plain JavaScript: it is not compiled.
import { appendFileSync } from "node:fs";
import { join } from "node:path";

export default function register(api) {
  // Description and parameters come from plugin.yaml.
  api.registerTool({
    name: "${tool}",
    handler: ({ text }) => {
      const words = text.trim() ? text.trim().split(/\\s+/).length : 0;
      return { words, characters: text.length };
    },
  });

  // One line per tool call of every session (the model's and its scripts').
  const log = join(api.dir, "tool-calls.jsonl");
  api.on("post_tool_call", ({ tool_name, is_error, duration_ms }) => {
    appendFileSync(log, \`\${JSON.stringify({ tool: tool_name, ok: !is_error, ms: duration_ms })}\\n\`);
  });
}
`,
    "index.test.mjs": `// Run with: node --test   (in this folder)
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import register from "./index.mjs";

/** Records what register(api) registers, like Hermes does. */
function load() {
  const dir = mkdtempSync(join(tmpdir(), "${name}-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const tools = new Map();
  const hooks = new Map();
  const quiet = () => {};
  register({
    name: "${name}",
    dir,
    home: dir,
    config: {},
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    registerTool: (spec) => tools.set(spec.name, spec),
    on: (hook, fn) => hooks.set(hook, fn),
    registerCommand: quiet,
    registerPromptSection: quiet,
  });
  return { dir, tools, hooks };
}

test("${tool} counts words and characters", async () => {
  const { tools } = load();
  const result = await tools.get("${tool}").handler({ text: "one two  three" }, {});
  assert.deepEqual(result, { words: 3, characters: 14 });
});

test("post_tool_call records each call", () => {
  const { dir, hooks } = load();
  hooks.get("post_tool_call")({ tool_name: "read_file", is_error: false, duration_ms: 4 });
  const lines = readFileSync(join(dir, "tool-calls.jsonl"), "utf8").trim().split("\\n");
  assert.deepEqual(JSON.parse(lines[0]), { tool: "read_file", ok: true, ms: 4 });
});
`,
    "package.json": `${JSON.stringify({ name: `hermes-plugin-${name}`, private: true, type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
  };
}

/** Writes a new plugin into `<root>/<name>`; returns its folder. Throws when the name or folder is taken. */
export function createPluginScaffold(root: string, name: string): string {
  if (!PLUGIN_NAME_RE.test(name))
    throw new Error(`'${name}' is not a plugin name: use lowercase letters, digits, '_' and '-'`);
  const dir = join(root, name);
  if (existsSync(dir)) throw new Error(`${dir} already exists`);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(scaffoldFiles(name))) writeFileSync(join(dir, file), text);
  return dir;
}
