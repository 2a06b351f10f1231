import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";

/**
 * Loads `HERMES_HOME/.env` (secrets only) into the process environment. Variables already set in the
 * real environment win, so `OPENAI_API_KEY=... hermes` overrides the file. Returns the keys loaded.
 */
export function loadDotEnv(envPath: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (!existsSync(envPath)) return [];
  let parsed: Record<string, string>;
  try {
    parsed = parseEnv(readFileSync(envPath, "utf8")) as Record<string, string>;
  } catch (err) {
    process.emitWarning(`Could not read ${envPath}: ${(err as Error).message}`);
    return [];
  }
  const loaded: string[] = [];
  for (const [key, value] of Object.entries(parsed)) {
    if (env[key] === undefined || env[key] === "") {
      env[key] = value;
      loaded.push(key);
    }
  }
  return loaded;
}
