/**
 * `HERMES_HOME/auth.json`: pooled API keys shared by every Hermes process of a profile (seed 004
 * §5). Reads and read-modify-writes happen under an exclusive lock file (`auth.json.lock`, see
 * core/file-lock.ts) so two processes never interleave updates; writes go to a temp file that is renamed
 * over the original, so readers without the lock never see a half-written file. The file is 0600.
 *
 * Synchronous on purpose: the lock is held for well under a millisecond, and a synchronous store
 * lets the provider router answer "which key now?" without turning every caller async.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileLockError, lockFileSync, type ReleaseLock } from "../core/file-lock.js";
import { isRecord } from "../core/is-record.js";

/** One pooled credential as stored in auth.json. Times are ISO-8601 strings (readable by people). */
export interface PoolEntry {
  id: string;
  label: string;
  api_key: string;
  /** Lower is tried first (fill_first); round_robin moves the used entry to the back. */
  priority: number;
  /** How many times this entry was selected for a request. */
  request_count: number;
  last_used_at: string | null;
  /** The entry is skipped until this time; null when usable. */
  exhausted_until: string | null;
  /** HTTP status of the last failure that exhausted it. */
  last_status: number | null;
  last_error: string | null;
}

export interface AuthStore {
  version: 1;
  credential_pool: Record<string, PoolEntry[]>;
  /** Keys this version does not know are kept as they are. */
  [other: string]: unknown;
}

/** auth.json cannot be read, parsed or locked; the message says what to do. */
export class AuthStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthStoreError";
  }
}

export const authFilePath = (home: string): string => join(home, "auth.json");

/** Longest a caller waits for the lock before giving up. */
const LOCK_TIMEOUT_MS = 10_000;

/** Reads auth.json without the lock (safe: writes are atomic renames). Missing file = empty store. */
export function readAuthStore(file: string): AuthStore {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return emptyStore();
    throw new AuthStoreError(`${file}: cannot read: ${(err as Error).message}`);
  }
  if (text.trim() === "") return emptyStore();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new AuthStoreError(`${file}: not valid JSON (${(err as Error).message}); fix or remove it`);
  }
  if (!isRecord(raw)) throw new AuthStoreError(`${file}: the top level must be a JSON object`);
  const pool: Record<string, PoolEntry[]> = {};
  const rawPool = isRecord(raw.credential_pool) ? raw.credential_pool : {};
  for (const [provider, list] of Object.entries(rawPool)) {
    if (!Array.isArray(list)) continue;
    pool[provider] = list.filter(isRecord).map((e, i) => normaliseEntry(e, i));
  }
  return { ...raw, version: 1, credential_pool: pool };
}

/**
 * Runs `update` on the freshly read store while holding the lock and writes the result back when
 * it changed. The lock covers the read, so concurrent updates never lose each other's changes.
 * Throws AuthStoreError when the file is corrupt or the lock cannot be had.
 */
export function updateAuthStore<T>(file: string, update: (store: AuthStore) => T): T {
  let release: ReleaseLock;
  try {
    release = lockFileSync(`${file}.lock`, { timeoutMs: LOCK_TIMEOUT_MS });
  } catch (err) {
    throw err instanceof FileLockError ? new AuthStoreError(err.message) : err;
  }
  try {
    const store = readAuthStore(file);
    const before = JSON.stringify(store);
    const result = update(store);
    const after = JSON.stringify(store);
    if (after !== before) writeAtomically(file, `${JSON.stringify(store, null, 2)}\n`);
    return result;
  } finally {
    release();
  }
}

function emptyStore(): AuthStore {
  return { version: 1, credential_pool: {} };
}

function normaliseEntry(e: Record<string, unknown>, index: number): PoolEntry {
  const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
  const num = (v: unknown, fallback: number): number =>
    typeof v === "number" && Number.isFinite(v) ? v : fallback;
  // Unknown fields (future OAuth state) survive a rewrite.
  return {
    ...e,
    id: text(e.id) ?? `entry-${index + 1}`,
    label: text(e.label) ?? text(e.id) ?? `key ${index + 1}`,
    api_key: typeof e.api_key === "string" ? e.api_key : "",
    priority: num(e.priority, index),
    request_count: num(e.request_count, 0),
    last_used_at: text(e.last_used_at),
    // Numbers (epoch s/ms) are accepted from hand-edited files; they are re-written as ISO.
    exhausted_until:
      typeof e.exhausted_until === "number" ? String(e.exhausted_until) : text(e.exhausted_until),
    last_status: typeof e.last_status === "number" ? e.last_status : null,
    last_error: text(e.last_error),
  };
}

function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw new AuthStoreError(`${file}: cannot write: ${(err as Error).message}`);
  }
}
