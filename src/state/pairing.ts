/**
 * DM pairing in state.db: users the owner approved, one-time codes waiting for approval (only as a
 * salted hash), when each stranger last got a reply, failed approvals and lockouts, and allowlist
 * `@handle`s pinned to the account that first carried them. The gateway (a stranger's DM) and
 * `hermes pairing` (the owner, another process) share these rows; every decision that reads and
 * then writes (issue a code, approve one) is one transaction, so two processes never race.
 *
 * Reads never wait. Writes resolve once committed and reject with StateStoreError "locked" when
 * state.db's write lock stayed with another process past the store's write deadline.
 */

/** A code lives 1 h. */
export const CODE_TTL_MS = 60 * 60 * 1000;
/** At most this many codes wait per platform. */
export const MAX_PENDING_PER_PLATFORM = 3;
/** A stranger gets at most one reply per 10 min. */
export const REQUEST_INTERVAL_MS = 10 * 60 * 1000;
/** This many wrong codes in a row lock a platform's approvals... */
export const MAX_FAILED_APPROVALS = 5;
/** ...for this long. */
export const LOCKOUT_MS = 60 * 60 * 1000;
/** Expired requests are kept this long so that approving one says "expired", not "unknown". */
export const EXPIRED_KEPT_MS = 60 * 60 * 1000;

/** A code as stored: scrypt of the code with a random salt (hex). */
export interface HashedCode {
  salt: string;
  hash: string;
}

export interface PendingCode extends HashedCode {
  platform: string;
  userId: string;
  userName?: string;
  createdAt: number;
  expiresAt: number;
}

export interface ApprovedUser {
  platform: string;
  userId: string;
  userName?: string;
  approvedAt: number;
}

/** An `@handle` allowlist entry and the account it was pinned to. */
export interface HandlePin {
  platform: string;
  /** Lower case, without the @. */
  handle: string;
  userId: string;
  pinnedAt: number;
}

export interface PairingRows {
  /** Codes still valid, oldest first. */
  pending: PendingCode[];
  approved: ApprovedUser[];
  pins: HandlePin[];
  /** platform → end of its approval lockout (only platforms locked now). */
  lockedUntil: Record<string, number>;
  /** The store's clock when the rows were read (what "still valid" and "locked now" mean). */
  asOf: number;
}

/** What became of a stranger's request for a code. */
export type CodeRequestOutcome =
  /** The hashed code was stored: it expires then. */
  | { kind: "issued"; expiresAt: number }
  /** The user got a reply less than REQUEST_INTERVAL_MS ago: nothing stored. */
  | { kind: "recent" }
  /** MAX_PENDING_PER_PLATFORM codes already wait: the reply time was stored, no code. */
  | { kind: "full" }
  /** The user is approved (by another process meanwhile). */
  | { kind: "approved" };

/** What became of an approval attempt. */
export type ApprovalOutcome =
  | { kind: "approved"; user: ApprovedUser }
  /** Approvals of the platform are locked for `remainingMs` more. */
  | { kind: "locked"; remainingMs: number }
  /** No waiting code matched: counted as a wrong guess (`lockedNow` when it started a lockout). */
  | { kind: "unknown"; failures: number; lockedNow: boolean }
  /** The code matched but had expired `agoMs` ago; the request is gone. */
  | { kind: "expired"; agoMs: number };

/**
 * The pairing side tables. Platform names are the caller's to check (this stores what it is given);
 * code hashing and matching are the caller's too (slow on purpose: never inside a transaction).
 */
export interface PairingTables {
  isApproved(platform: string, userId: string): boolean;
  /** The user id `handle` (lower case, no @) is pinned to on `platform`. */
  pinnedUser(platform: string, handle: string): string | undefined;
  /** Whether `userId` got a pairing reply on `platform` less than REQUEST_INTERVAL_MS ago. */
  answeredRecently(platform: string, userId: string): boolean;
  /** How long approvals of `platform` stay locked from now (ms); 0 when they are not. */
  lockoutRemainingMs(platform: string): number;
  /** Every stored request of a platform, expired ones kept for EXPIRED_KEPT_MS included. */
  pendingCodes(platform: string): PendingCode[];
  /** Platforms with any pairing rows, sorted. */
  platforms(): string[];
  /** What `hermes pairing list` shows, of one platform or all. */
  list(platform?: string): PairingRows;

  /**
   * A stranger wrote: applies the limits and, when they allow, stores `code` as the user's only
   * request (a newer code replaces an older one) and the time of this reply.
   */
  requestCode(
    platform: string,
    user: { id: string; name?: string },
    code: HashedCode,
  ): Promise<CodeRequestOutcome>;
  /**
   * An approval attempt whose code the caller matched against `pendingCodes` (`match` undefined
   * when none matched). Refused while locked; a matched request is consumed (approved, or expired);
   * a miss (or a match consumed meanwhile) counts toward the lockout.
   */
  approve(platform: string, match: { userId: string; hash: string } | undefined): Promise<ApprovalOutcome>;
  /** Removes a user's approval and waiting request; says which of them existed. */
  revoke(platform: string, userId: string): Promise<{ approval: boolean; pending: boolean }>;
  /** Pins `handle` to `userId` unless it is pinned already; resolves with whom it is pinned to now. */
  pinHandle(platform: string, handle: string, userId: string): Promise<string>;
  /** Releases the pin of `handle`; resolves with whom it was pinned to (undefined: it was not). */
  unpinHandle(platform: string, handle: string): Promise<string | undefined>;
}
