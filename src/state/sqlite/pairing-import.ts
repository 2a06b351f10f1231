/**
 * Pairing used to live in JSON files beside state.db (HERMES_HOME/platforms/pairing/): the migration
 * that creates the pairing tables imports them in its own transaction, so an upgrade loses no
 * approval, no waiting code and no pinned handle, and it happens exactly once (a second process
 * finds the migration done). After the commit each imported file is renamed to `<name>.imported`.
 */
import { existsSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { isRecord } from "../../core/is-record.js";

const PLATFORM_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const FILE_NAME = /^(.+)-(pending|approved|handles)\.json$/;
const RATE_LIMITS = "_rate_limits.json";

type Json = Record<string, unknown>;

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The pairing folder of the home state.db lives in (none for an in-memory database). */
export function legacyPairingDir(dbPath: string): string | undefined {
  if (dbPath === ":memory:" || dbPath.startsWith("file:")) return undefined;
  return join(dirname(dbPath), "platforms", "pairing");
}

/**
 * Inserts what the JSON files hold (inside the caller's transaction); returns what renames the files
 * once the transaction committed. A file that cannot be parsed is left where it is, untouched.
 */
export function importLegacyPairing(db: DatabaseSync, dbPath: string): () => void {
  const dir = legacyPairingDir(dbPath);
  if (!dir || !existsSync(dir)) return () => {};
  const imported: string[] = [];
  for (const file of readdirSync(dir)) {
    const m = FILE_NAME.exec(file);
    const platform = m?.[1];
    if (file !== RATE_LIMITS && (!m || !platform || !PLATFORM_NAME.test(platform))) continue;
    const data = readJson(join(dir, file));
    if (data === undefined) continue;
    if (file === RATE_LIMITS) importRateLimits(db, data);
    else if (m?.[2] === "approved") importApproved(db, platform!, data);
    else if (m?.[2] === "pending") importPending(db, platform!, data);
    else importPins(db, platform!, data);
    imported.push(join(dir, file));
  }
  return () => {
    for (const path of imported) {
      try {
        renameSync(path, `${path}.imported`);
      } catch {
        // Already moved (by hand): its rows are in state.db either way.
      }
    }
  };
}

function readJson(path: string): Json | undefined {
  try {
    const data: unknown = JSON.parse(readFileSync(path, "utf8"));
    return isRecord(data) ? data : undefined;
  } catch {
    return undefined;
  }
}

function rows(data: Json, key: string): Json[] {
  const list = data[key];
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

function importApproved(db: DatabaseSync, platform: string, data: Json): void {
  const insert = db.prepare(
    "INSERT OR IGNORE INTO pairing_approved (platform, user_id, user_name, approved_at) VALUES (?, ?, ?, ?)",
  );
  for (const r of rows(data, "users")) {
    const userId = text(r.user_id);
    const at = num(r.approved_at);
    if (userId !== null && at !== null) insert.run(platform, userId, text(r.user_name), at);
  }
}

function importPending(db: DatabaseSync, platform: string, data: Json): void {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO pairing_pending (platform, user_id, user_name, salt, hash, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of rows(data, "requests")) {
    const [userId, salt, hash] = [text(r.user_id), text(r.salt), text(r.hash)];
    const [created, expires] = [num(r.created_at), num(r.expires_at)];
    if (userId === null || salt === null || hash === null || created === null || expires === null) continue;
    insert.run(platform, userId, text(r.user_name), salt, hash, created, expires);
  }
}

function importPins(db: DatabaseSync, platform: string, data: Json): void {
  const insert = db.prepare(
    "INSERT OR IGNORE INTO pairing_handles (platform, handle, user_id, pinned_at) VALUES (?, ?, ?, ?)",
  );
  for (const r of rows(data, "pins")) {
    const [handle, userId, at] = [text(r.handle), text(r.user_id), num(r.pinned_at)];
    if (handle !== null && userId !== null && at !== null) insert.run(platform, handle, userId, at);
  }
}

function importRateLimits(db: DatabaseSync, data: Json): void {
  const request = db.prepare(
    "INSERT OR IGNORE INTO pairing_requests (platform, user_id, replied_at) VALUES (?, ?, ?)",
  );
  for (const [platform, users] of Object.entries(isRecord(data.requests) ? data.requests : {})) {
    if (!PLATFORM_NAME.test(platform) || !isRecord(users)) continue;
    for (const [userId, at] of Object.entries(users)) {
      const when = num(at);
      if (when !== null) request.run(platform, userId, when);
    }
  }
  const lockout = db.prepare(
    "INSERT OR IGNORE INTO pairing_lockouts (platform, failures, locked_until) VALUES (?, ?, ?)",
  );
  for (const [platform, state] of Object.entries(isRecord(data.approvals) ? data.approvals : {})) {
    if (!PLATFORM_NAME.test(platform) || !isRecord(state)) continue;
    lockout.run(platform, num(state.failures) ?? 0, num(state.locked_until));
  }
}
