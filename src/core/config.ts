import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { type Document, isMap, isScalar, LineCounter, parseDocument, parse as parseYaml } from "yaml";
import { DEFAULT_CONFIG, type HermesConfig } from "./config-defaults.js";
import { CONFIG_RULES, FREE_TYPED_KEYS } from "./config-rules.js";
import { isRecord } from "./is-record.js";
import { yamlErrorLine } from "./yaml-error-line.js";

export { DEFAULT_CONFIG, type HermesConfig } from "./config-defaults.js";

/** A config.yaml problem, with the file, key and line in the message. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly key?: string,
    readonly line?: number,
    /** The problem without its location ("'agent.max_turns' must be a number ..."). */
    readonly problem?: string,
  ) {
    super(message);
    this.name = "ConfigError";
  }
}

export interface LoadedConfig {
  config: HermesConfig;
  path: string;
  /** Non-fatal notes (unknown keys), for `hermes config show` and the log. */
  warnings: string[];
}

type Plain = Record<string, unknown>;

const typeName = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "list" : typeof v === "object" ? "mapping" : typeof v;

/** Deep merge: objects merge key by key, everything else (lists included) is replaced. */
export function deepMerge<T>(base: T, override: unknown): T {
  if (!isRecord(base) || !isRecord(override)) return (override === undefined ? base : override) as T;
  const out: Plain = { ...base };
  for (const [k, v] of Object.entries(override)) out[k] = k in out ? deepMerge(out[k], v) : v;
  return out as T;
}

/** The original accepts `model: some/model` as shorthand for `model: {default: some/model}`. */
function normaliseShorthands(raw: Plain): Plain {
  if (typeof raw.model === "string") return { ...raw, model: { default: raw.model } };
  return raw;
}

/** The line of the deepest key of `path` written in the document (where its key is, not its value). */
function lineOf(doc: Document | undefined, counter: LineCounter, path: string[]): number | undefined {
  if (!doc) return undefined;
  for (let depth = path.length; depth > 0; depth--) {
    const parent = depth === 1 ? doc.contents : doc.getIn(path.slice(0, depth - 1), true);
    if (!isMap(parent)) continue;
    const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === path[depth - 1]);
    const range = (pair?.key as { range?: [number, number, number] } | undefined)?.range;
    if (range) return counter.linePos(range[0]).line;
  }
  return undefined;
}

/** Validates user values against the defaults' shape and the rules table. Returns warnings; throws on errors. */
function validate(user: Plain, file: string, doc: Document | undefined, counter: LineCounter): string[] {
  const warnings: string[] = [];
  const walk = (value: Plain, defaults: Plain, path: string[]): void => {
    for (const [key, v] of Object.entries(value)) {
      const keyPath = [...path, key];
      const dotted = keyPath.join(".");
      if (!(key in defaults)) {
        warnings.push(`${file}: unknown key '${dotted}' (ignored by this version)`);
        continue;
      }
      const def = defaults[key];
      const fail = (why: string): never => {
        const line = lineOf(doc, counter, keyPath);
        const where = line ? `${file}:${line}` : file;
        const problem = `'${dotted}' ${why} (got ${JSON.stringify(v)})`;
        throw new ConfigError(`${where}: ${problem}`, file, dotted, line, problem);
      };
      if (v === null) fail("has no value; remove the key or give it one");
      const rule = CONFIG_RULES[dotted];
      if (!FREE_TYPED_KEYS.has(dotted) && typeName(def) !== typeName(v)) {
        fail(`must be a ${typeName(def)}, not a ${typeName(v)}`);
      }
      // Lists are lists of strings unless a rule says what their items are (e.g. fallback_providers).
      if (!rule && Array.isArray(def) && Array.isArray(v) && v.some((item) => typeof item !== "string")) {
        fail("must be a list of strings");
      }
      if (rule) {
        const problem = rule(v);
        if (problem) fail(problem);
      }
      // An empty default mapping is free-form (keys chosen by the user); its rule checks the values.
      const freeForm = isRecord(def) && Object.keys(def).length === 0;
      if (isRecord(def) && isRecord(v) && !freeForm) walk(v, def, keyPath);
    }
  };
  walk(user, DEFAULT_CONFIG as unknown as Plain, []);
  return warnings;
}

/** Parses and validates config text. Exposed for tests and `hermes config check`. */
export function parseConfigText(text: string, file: string): LoadedConfig {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const line = yamlErrorLine(text, err, counter);
    const problem = `invalid YAML: ${err.message.split("\n")[0]}`;
    throw new ConfigError(`${file}:${line}: ${problem}`, file, undefined, line, problem);
  }
  const raw: unknown = doc.toJS() ?? {};
  if (!isRecord(raw)) {
    throw new ConfigError(`${file}: the top level must be a mapping of keys, not a ${typeName(raw)}`, file);
  }
  const user = normaliseShorthands(raw);
  const warnings = validate(user, file, typeof raw.model === "string" ? undefined : doc, counter);
  return { config: deepMerge(DEFAULT_CONFIG, user), path: file, warnings };
}

/** Loads `config.yaml` from a home; a missing file means defaults. Throws ConfigError on bad input. */
export function loadConfig(configPath: string): LoadedConfig {
  if (!existsSync(configPath))
    return { config: structuredClone(DEFAULT_CONFIG), path: configPath, warnings: [] };
  let text: string;
  try {
    text = readFileSync(configPath, "utf8");
  } catch (err) {
    throw new ConfigError(`${configPath}: cannot read: ${(err as Error).message}`, configPath);
  }
  return parseConfigText(text, configPath);
}

/** Reads a dotted key from a config object. */
export function getConfigValue(config: HermesConfig, dotted: string): unknown {
  let cur: unknown = config;
  for (const part of dotted.split(".")) {
    if (!isRecord(cur) || !(part in cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/** Interprets a command-line value the way YAML would (`5` → 5, `true` → true, `[a, b]` → list). */
export function parseCliValue(raw: string): unknown {
  try {
    return parseYaml(raw);
  } catch {
    return raw;
  }
}

/**
 * Sets one key in config.yaml, keeping the user's comments and layout, after validating the result.
 * The file is replaced atomically; the previous content is never lost on a bad value.
 */
export function setConfigValue(configPath: string, dotted: string, value: unknown): HermesConfig {
  const path = dotted.split(".");
  const defaultValue = getConfigValue(DEFAULT_CONFIG, dotted);
  if (defaultValue === undefined && !underFreeForm(path))
    throw new ConfigError(`unknown config key '${dotted}'`, configPath, dotted);
  const text = existsSync(configPath) ? readFileSync(configPath, "utf8") : "";
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const line = yamlErrorLine(text, err, counter);
    throw new ConfigError(
      `${configPath}:${line}: invalid YAML (${err.message.split("\n")[0]}); fix it before using 'config set'`,
      configPath,
      undefined,
      line,
    );
  }
  if (path[0] === "model" && isScalar(doc.get("model", true))) {
    doc.set("model", doc.createNode({ default: doc.get("model") }));
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new ConfigError(`${configPath}: the top level must be a mapping of keys`, configPath);
  }
  const coerced = typeof defaultValue === "string" && typeof value !== "string" ? String(value) : value;
  const before = doc.clone();
  doc.setIn(path, coerced);
  const next = doc.toString();
  let loaded: LoadedConfig;
  try {
    loaded = parseConfigText(next, configPath);
  } catch (err) {
    throw unsavedError(err, configPath, before, counter);
  }
  const tmp = `${configPath}.tmp-${process.pid}`;
  writeFileSync(tmp, next, { mode: 0o600 });
  renameSync(tmp, configPath);
  return loaded.config;
}

/** True when a key lies inside a mapping whose keys the user chooses (e.g. `mcp_servers.<name>`). */
function underFreeForm(path: readonly string[]): boolean {
  for (let depth = path.length - 1; depth > 0; depth--) {
    const parent = getConfigValue(DEFAULT_CONFIG, path.slice(0, depth).join("."));
    if (parent !== undefined) return isRecord(parent) && Object.keys(parent).length === 0;
  }
  return false;
}

/**
 * Removes one key from config.yaml, keeping everything else as written; false when it was not
 * there. Only keys inside user-chosen mappings (e.g. `mcp_servers.<name>`) can be removed.
 */
export function removeConfigValue(configPath: string, dotted: string): boolean {
  const path = dotted.split(".");
  if (!underFreeForm(path)) throw new ConfigError(`'${dotted}' cannot be removed`, configPath, dotted);
  if (!existsSync(configPath)) return false;
  const text = readFileSync(configPath, "utf8");
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new ConfigError(`${configPath}: invalid YAML; fix it before changing settings`, configPath);
  if (!doc.hasIn(path)) return false;
  doc.deleteIn(path);
  const next = doc.toString();
  parseConfigText(next, configPath);
  const tmp = `${configPath}.tmp-${process.pid}`;
  writeFileSync(tmp, next, { mode: 0o600 });
  renameSync(tmp, configPath);
  return true;
}

/**
 * A value `config set` refused. Line numbers of the edited text would point into a file never
 * written, so the line named is the key's line in the file as it is, or none.
 */
function unsavedError(err: unknown, file: string, current: Document, counter: LineCounter): unknown {
  if (!(err instanceof ConfigError) || !err.problem) return err;
  const line = err.key ? lineOf(current, counter, err.key.split(".")) : undefined;
  const where = line ? `${file}:${line}` : file;
  return new ConfigError(`${where}: ${err.problem}; nothing was changed`, file, err.key, line, err.problem);
}
