/** Where generated media land: HERMES_HOME/cache/<kind>/, one new file per call. */
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Writes `data` to a fresh file under HERMES_HOME/cache/<kind>/ and returns its path. */
export async function saveToCache(home: string, kind: string, ext: string, data: Buffer): Promise<string> {
  const dir = join(home, "cache", kind);
  await mkdir(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const path = join(dir, `${kind}_${stamp}_${randomBytes(3).toString("hex")}.${ext}`);
  await writeFile(path, data);
  return path;
}

/** The first words of a provider's error body, for a message the model can act on. */
export async function httpFailure(what: string, res: Response): Promise<Error> {
  const body = (await res.text().catch(() => "")).replace(/\s+/g, " ").trim().slice(0, 300);
  return new Error(`${what} answered HTTP ${res.status}${body ? `: ${body}` : ""}`);
}

/** Env variables read by the media backends (process.env unless a test injects its own). */
export type MediaEnv = Readonly<Record<string, string | undefined>>;

export const hasKey = (env: MediaEnv, name: string): boolean => Boolean(env[name]?.trim());
