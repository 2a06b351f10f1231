import {
  type ApprovalOutcome,
  type ApprovedUser,
  CODE_TTL_MS,
  type CodeRequestOutcome,
  EXPIRED_KEPT_MS,
  type HandlePin,
  type HashedCode,
  LOCKOUT_MS,
  MAX_FAILED_APPROVALS,
  MAX_PENDING_PER_PLATFORM,
  type PairingRows,
  type PairingTables,
  type PendingCode,
  REQUEST_INTERVAL_MS,
} from "../pairing.js";
import type { SqliteDatabase } from "./database.js";
import type { Row } from "./rows.js";

/** The pairing tables (pairing_*) on the shared connection; every decision is one transaction. */
export class SqlitePairingTables implements PairingTables {
  constructor(private readonly core: SqliteDatabase) {}

  private get st() {
    return this.core.st;
  }

  isApproved(platform: string, userId: string): boolean {
    return (
      this.st("SELECT 1 FROM pairing_approved WHERE platform = ? AND user_id = ?").get(platform, userId) !==
      undefined
    );
  }

  pinnedUser(platform: string, handle: string): string | undefined {
    const row = this.st("SELECT user_id FROM pairing_handles WHERE platform = ? AND handle = ?").get(
      platform,
      handle,
    ) as Row | undefined;
    return row ? String(row.user_id) : undefined;
  }

  answeredRecently(platform: string, userId: string): boolean {
    const last = this.lastRequestAt(platform, userId);
    return last !== undefined && this.core.now() - last < REQUEST_INTERVAL_MS;
  }

  private lastRequestAt(platform: string, userId: string): number | undefined {
    const row = this.st("SELECT replied_at FROM pairing_requests WHERE platform = ? AND user_id = ?").get(
      platform,
      userId,
    ) as Row | undefined;
    return row ? Number(row.replied_at) : undefined;
  }

  lockoutRemainingMs(platform: string): number {
    const until = this.lockedUntil(platform);
    return until === undefined ? 0 : Math.max(0, until - this.core.now());
  }

  pendingCodes(platform: string): PendingCode[] {
    const rows = this.st("SELECT * FROM pairing_pending WHERE platform = ? ORDER BY created_at, user_id").all(
      platform,
    ) as Row[];
    return rows.map(toPending);
  }

  platforms(): string[] {
    const rows = this.st(
      `SELECT platform FROM pairing_pending UNION SELECT platform FROM pairing_approved
       UNION SELECT platform FROM pairing_handles ORDER BY platform`,
    ).all() as Row[];
    return rows.map((r) => String(r.platform));
  }

  list(platform?: string): PairingRows {
    const now = this.core.now();
    const where = platform === undefined ? "" : "WHERE platform = ?";
    const args = platform === undefined ? [] : [platform];
    const pending = (
      this.st(`SELECT * FROM pairing_pending ${where} ORDER BY platform, created_at, user_id`).all(
        ...args,
      ) as Row[]
    )
      .map(toPending)
      .filter((p) => p.expiresAt > now);
    const approved = (
      this.st(`SELECT * FROM pairing_approved ${where} ORDER BY platform, approved_at, user_id`).all(
        ...args,
      ) as Row[]
    ).map(toApproved);
    const pins = (
      this.st(`SELECT * FROM pairing_handles ${where} ORDER BY platform, pinned_at, handle`).all(
        ...args,
      ) as Row[]
    ).map(toPin);
    const lockedUntil: Record<string, number> = {};
    const locks = this.st(
      `SELECT platform, locked_until FROM pairing_lockouts ${where ? `${where} AND` : "WHERE"} locked_until > ?`,
    ).all(...args, now) as Row[];
    for (const r of locks) lockedUntil[String(r.platform)] = Number(r.locked_until);
    return { pending, approved, pins, lockedUntil, asOf: now };
  }

  requestCode(
    platform: string,
    user: { id: string; name?: string },
    code: HashedCode,
  ): Promise<CodeRequestOutcome> {
    return this.core.write((): CodeRequestOutcome => {
      const now = this.core.now();
      if (this.isApproved(platform, user.id)) return { kind: "approved" };
      // Reply times older than the interval are dropped, so the table does not grow with every stranger.
      this.st("DELETE FROM pairing_requests WHERE replied_at <= ?").run(now - REQUEST_INTERVAL_MS);
      const last = this.lastRequestAt(platform, user.id);
      if (last !== undefined && now - last < REQUEST_INTERVAL_MS) return { kind: "recent" };
      this.st("DELETE FROM pairing_pending WHERE expires_at + ? <= ?").run(EXPIRED_KEPT_MS, now);
      const waiting = this.st(
        "SELECT COUNT(*) AS n FROM pairing_pending WHERE platform = ? AND expires_at > ? AND user_id <> ?",
      ).get(platform, now, user.id) as Row;
      this.st(
        `INSERT INTO pairing_requests (platform, user_id, replied_at) VALUES (?, ?, ?)
         ON CONFLICT (platform, user_id) DO UPDATE SET replied_at = excluded.replied_at`,
      ).run(platform, user.id, now);
      if (Number(waiting.n) >= MAX_PENDING_PER_PLATFORM) return { kind: "full" };
      const expiresAt = now + CODE_TTL_MS;
      // A user's newer code replaces their older one: only the latest was shown to them.
      this.st(
        `INSERT OR REPLACE INTO pairing_pending (platform, user_id, user_name, salt, hash, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(platform, user.id, user.name ?? null, code.salt, code.hash, now, expiresAt);
      return { kind: "issued", expiresAt };
    });
  }

  approve(platform: string, match: { userId: string; hash: string } | undefined): Promise<ApprovalOutcome> {
    return this.core.write((): ApprovalOutcome => {
      const now = this.core.now();
      const until = this.lockedUntil(platform);
      if (until !== undefined && until > now) return { kind: "locked", remainingMs: until - now };
      const row = match
        ? (this.st("SELECT * FROM pairing_pending WHERE platform = ? AND user_id = ? AND hash = ?").get(
            platform,
            match.userId,
            match.hash,
          ) as Row | undefined)
        : undefined;
      if (!row) {
        const failures = this.failures(platform) + 1;
        const lockedNow = failures >= MAX_FAILED_APPROVALS;
        this.setLockout(platform, lockedNow ? 0 : failures, lockedNow ? now + LOCKOUT_MS : null);
        return { kind: "unknown", failures, lockedNow };
      }
      const request = toPending(row);
      this.st("DELETE FROM pairing_pending WHERE platform = ? AND user_id = ?").run(platform, request.userId);
      if (request.expiresAt <= now) return { kind: "expired", agoMs: now - request.expiresAt };
      this.st(
        `INSERT OR REPLACE INTO pairing_approved (platform, user_id, user_name, approved_at) VALUES (?, ?, ?, ?)`,
      ).run(platform, request.userId, request.userName ?? null, now);
      this.setLockout(platform, 0, null);
      return {
        kind: "approved",
        user: {
          platform,
          userId: request.userId,
          ...(request.userName !== undefined ? { userName: request.userName } : {}),
          approvedAt: now,
        },
      };
    });
  }

  revoke(platform: string, userId: string): Promise<{ approval: boolean; pending: boolean }> {
    return this.core.write(() => ({
      approval:
        Number(
          this.st("DELETE FROM pairing_approved WHERE platform = ? AND user_id = ?").run(platform, userId)
            .changes,
        ) > 0,
      pending:
        Number(
          this.st("DELETE FROM pairing_pending WHERE platform = ? AND user_id = ?").run(platform, userId)
            .changes,
        ) > 0,
    }));
  }

  pinHandle(platform: string, handle: string, userId: string): Promise<string> {
    const at = this.core.now();
    return this.core.write(() => {
      this.st(
        "INSERT OR IGNORE INTO pairing_handles (platform, handle, user_id, pinned_at) VALUES (?, ?, ?, ?)",
      ).run(platform, handle, userId, at);
      return this.pinnedUser(platform, handle) ?? userId;
    });
  }

  unpinHandle(platform: string, handle: string): Promise<string | undefined> {
    return this.core.write(() => {
      const owner = this.pinnedUser(platform, handle);
      if (owner !== undefined) {
        this.st("DELETE FROM pairing_handles WHERE platform = ? AND handle = ?").run(platform, handle);
      }
      return owner;
    });
  }

  private lockedUntil(platform: string): number | undefined {
    const row = this.st("SELECT locked_until FROM pairing_lockouts WHERE platform = ?").get(platform) as
      | Row
      | undefined;
    return row?.locked_until === null || row?.locked_until === undefined
      ? undefined
      : Number(row.locked_until);
  }

  private failures(platform: string): number {
    const row = this.st("SELECT failures FROM pairing_lockouts WHERE platform = ?").get(platform) as
      | Row
      | undefined;
    return row ? Number(row.failures) : 0;
  }

  private setLockout(platform: string, failures: number, lockedUntil: number | null): void {
    this.st(
      `INSERT INTO pairing_lockouts (platform, failures, locked_until) VALUES (?, ?, ?)
       ON CONFLICT (platform) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until`,
    ).run(platform, failures, lockedUntil);
  }
}

function toPending(r: Row): PendingCode {
  return {
    platform: String(r.platform),
    userId: String(r.user_id),
    ...(r.user_name !== null && r.user_name !== undefined ? { userName: String(r.user_name) } : {}),
    salt: String(r.salt),
    hash: String(r.hash),
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
  };
}

function toApproved(r: Row): ApprovedUser {
  return {
    platform: String(r.platform),
    userId: String(r.user_id),
    ...(r.user_name !== null && r.user_name !== undefined ? { userName: String(r.user_name) } : {}),
    approvedAt: Number(r.approved_at),
  };
}

function toPin(r: Row): HandlePin {
  return {
    platform: String(r.platform),
    handle: String(r.handle),
    userId: String(r.user_id),
    pinnedAt: Number(r.pinned_at),
  };
}
