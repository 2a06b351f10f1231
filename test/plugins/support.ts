import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DEFAULT_CONFIG, type HermesConfig } from "../../src/core/config-defaults.js";
import type { Logger } from "../../src/core/log.js";

/** Writes `<root>/<name>/plugin.yaml` and its files; returns the plugin's folder. */
export function writePlugin(
  root: string,
  name: string,
  manifest: string,
  files: Record<string, string> = {},
): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.yaml"), manifest);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

/**
 * An entry module that leaves `imported.txt` next to itself when imported (so a test can tell
 * whether it ever was), then runs `body` inside `register(api)`.
 */
export function entryModule(body: string): string {
  return `import { appendFileSync } from "node:fs";
import { dirname, join } from "node:path";
appendFileSync(join(import.meta.dirname, "imported.txt"), "imported\\n");
export default function register(api) {
${body}
}
`;
}

export function configWith(plugins: Partial<HermesConfig["plugins"]>): HermesConfig {
  return { ...DEFAULT_CONFIG, plugins: { ...DEFAULT_CONFIG.plugins, ...plugins } };
}

/** A logger that keeps records in memory. */
export function memoryLogger(): Logger & {
  records: Array<{ level: string; msg: string; fields?: unknown }>;
} {
  const records: Array<{ level: string; msg: string; fields?: unknown }> = [];
  const at =
    (level: string) =>
    (msg: string, fields?: Record<string, unknown>): void =>
      void records.push({ level, msg, fields });
  return {
    records,
    log: (level, msg, fields) => at(level)(msg, fields),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    debug: at("debug"),
    flush: async () => {},
  };
}
