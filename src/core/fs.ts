import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";

const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException)?.code;

/**
 * `mkdir -p` that walks the missing levels itself. Node's `{ recursive: true }` spins forever on
 * virtual filesystems that answer ENOENT for every create (e.g. a path under /proc), which would
 * hang a tool call; creating one level at a time fails fast with the real error instead.
 */
export async function ensureDir(dir: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  let cur = resolve(dir);
  for (;;) {
    try {
      const s = await stat(cur);
      if (!s.isDirectory()) throw new Error(`${cur} exists and is not a directory`);
      break;
    } catch (err) {
      if (codeOf(err) !== "ENOENT") throw err;
      const parent = dirname(cur);
      if (parent === cur) break;
      missing.push(cur);
      cur = parent;
    }
  }
  for (const d of missing.reverse()) {
    try {
      await mkdir(d, mode === undefined ? undefined : { mode });
    } catch (err) {
      if (codeOf(err) !== "EEXIST") throw err;
    }
  }
}

let tempCounter = 0;

/**
 * Writes through a temp file in the same folder and a rename, so a reader (or a crash) never sees
 * half a file. Creates missing parent folders.
 */
export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  // Unique among live processes (pid) and within this one (counter); the random part keeps a
  // reused pid from meeting a temp file a crashed process left behind.
  const tmp = `${path}.${process.pid}.${(++tempCounter).toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;
  try {
    writeFileSync(tmp, data, { mode });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
