import { stringify } from "yaml";
import { getConfigValue, loadConfig, parseCliValue, setConfigValue } from "../../core/config.js";
import { loadDotEnv } from "../../core/env.js";
import { ensureHermesHome, getHermesHome, type HomePaths, homePaths } from "../../core/home.js";
import { describeFatal } from "../errors.js";

const SECRET_KEY = /(api_key|token|secret|password)$/i;

/** Masks secret-looking values so `config show` can be pasted into a bug report. */
function maskSecrets(value: unknown, key = ""): unknown {
  if (typeof value === "string" && SECRET_KEY.test(key) && value)
    return `${value.slice(0, 4)}…(${value.length} chars)`;
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(v, k)]));
  }
  return value;
}

function fail(err: unknown): number {
  process.stderr.write(`${describeFatal(err)}\n`);
  return 1;
}

/**
 * The home for show, path and check: created as usual when possible, but they only read, so a
 * home that cannot be created or written (a file in the way, no permission) does not stop them.
 */
function readOnlyHome(): HomePaths {
  const home = getHermesHome();
  try {
    return ensureHermesHome(home);
  } catch {
    return homePaths(home);
  }
}

export async function configShow(): Promise<number> {
  const paths = readOnlyHome();
  try {
    const { config, path, warnings } = loadConfig(paths.config);
    process.stdout.write(`# ${path}\n${stringify(maskSecrets(config))}`);
    for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export async function configPath(): Promise<number> {
  process.stdout.write(`${readOnlyHome().config}\n`);
  return 0;
}

export async function configSet(key: string, raw: string): Promise<number> {
  try {
    const paths = ensureHermesHome(getHermesHome());
    const config = setConfigValue(paths.config, key, parseCliValue(raw));
    const shown = SECRET_KEY.test(key)
      ? maskSecrets(getConfigValue(config, key), key)
      : getConfigValue(config, key);
    process.stdout.write(`${key} = ${JSON.stringify(shown)}  (${paths.config})\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export async function configCheck(): Promise<number> {
  const paths = readOnlyHome();
  loadDotEnv(paths.env);
  try {
    const { warnings } = loadConfig(paths.config);
    for (const w of warnings) process.stdout.write(`warning: ${w}\n`);
    process.stdout.write(`${paths.config}: OK\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}
