import { DatabaseSync, type StatementSync } from "node:sqlite";
import { StateStoreError } from "../store.js";
import { importLegacyPairing } from "./pairing-import.js";
import { describeOpenError, type Row } from "./rows.js";
import { MIGRATIONS } from "./schema.js";

/**
 * Data a migration brings in from outside state.db, run in its transaction; what it returns runs
 * once the migration committed.
 */
const MIGRATION_DATA: Readonly<Record<number, (db: DatabaseSync, path: string) => () => void>> = {
  6: importLegacyPairing,
};

/**
 * Opens state.db (WAL) and migrates it. Opening and migrating wait up to `waitMs` for another
 * process's lock: a store that cannot open is no store at all. Throws StateStoreError; never deletes
 * or rewrites a bad file.
 */
export function openDatabase(
  path: string,
  waitMs: number,
  /** Page cache of the connection in KiB (FTS5 merges are page-heavy). */
  cacheKiB = 65_536,
): DatabaseSync {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { timeout: waitMs, enableForeignKeyConstraints: true });
  } catch (err) {
    throw describeOpenError(path, err);
  }
  try {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    // FTS5 segment merges are page-heavy: a bigger cache keeps inserts fast on large stores.
    db.exec(`PRAGMA cache_size = -${Math.max(256, Math.floor(cacheKiB))}`);
    db.exec("PRAGMA temp_store = MEMORY");
    db.exec("PRAGMA wal_autocheckpoint = 4000");
    migrate(db, path);
    return db;
  } catch (err) {
    try {
      db.close();
    } catch {
      // Already unusable.
    }
    throw describeOpenError(path, err);
  }
}

function migrate(db: DatabaseSync, path: string): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const current = schemaVersion(db);
  if (current > MIGRATIONS.length) {
    throw new StateStoreError(
      `${path} was written by a newer hermes (schema ${current}; this one knows ${MIGRATIONS.length}). Upgrade hermes.`,
      "other",
    );
  }
  for (let v = current + 1; v <= MIGRATIONS.length; v++) {
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another process may have migrated while this one waited for the lock.
      let afterCommit: (() => void) | undefined;
      if (schemaVersion(db) < v) {
        db.exec(MIGRATIONS[v - 1]!);
        afterCommit = MIGRATION_DATA[v]?.(db, path);
        db.prepare("INSERT INTO schema_version(version) VALUES (?)").run(v);
      }
      db.exec("COMMIT");
      afterCommit?.();
    } catch (err) {
      db.exec("ROLLBACK");
      throw err;
    }
  }
}

export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare("SELECT MAX(version) AS v FROM schema_version").get() as Row | undefined;
  return row?.v === null || row?.v === undefined ? 0 : Number(row.v);
}

/** Prepared statements, compiled once per SQL text. */
export type Statements = (sql: string) => StatementSync;

export function statementCache(db: DatabaseSync): Statements {
  const cache = new Map<string, StatementSync>();
  return (sql) => {
    let s = cache.get(sql);
    if (!s) {
      s = db.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
}
