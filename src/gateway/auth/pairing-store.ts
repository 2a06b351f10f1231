/**
 * DM pairing: an unknown user who writes to the bot gets a one-time code; the owner approves it
 * with `hermes pairing approve PLATFORM CODE` (another process), and from the next message on the
 * user may talk to the agent. Limits keep the bot from being a code-spraying target: codes live 1 h,
 * at most 3 wait per platform, a user gets at most one reply per 10 min, and 5 wrong approve
 * attempts lock the platform's approvals for 1 h. The rows live in state.db (its pairing tables);
 * this is the policy around them: platform names, codes and what each outcome tells the owner.
 */
import {
  type ApprovedUser,
  type HandlePin,
  MAX_FAILED_APPROVALS,
  type PairingTables,
} from "../../state/pairing.js";
import { codeMatches, generateCode, hashCode, normaliseCode } from "./pairing-code.js";

export type { HandlePin } from "../../state/pairing.js";
export {
  CODE_TTL_MS,
  LOCKOUT_MS,
  MAX_FAILED_APPROVALS,
  MAX_PENDING_PER_PLATFORM,
  REQUEST_INTERVAL_MS,
} from "../../state/pairing.js";

const PLATFORM_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** A platform name as stored and typed on the command line (letters, digits, _ and -). */
export function isPlatformName(name: string): boolean {
  return PLATFORM_NAME.test(name);
}

export type PairingFailure =
  | "bad_platform"
  | "bad_code"
  | "unknown_code"
  | "expired"
  | "locked"
  | "not_found";

/** A pairing operation that failed for a reason the owner can act on; `reason` is for callers. */
export class PairingError extends Error {
  constructor(
    readonly reason: PairingFailure,
    message: string,
  ) {
    super(message);
    this.name = "PairingError";
  }
}

/** What happened when an unknown user wrote. */
export type PairingRequestResult =
  /** A new code: show it to the user (the only place it ever appears). */
  | { kind: "code"; code: string; expiresAt: number }
  /** The user got a reply less than 10 min ago: stay silent. */
  | { kind: "recent" }
  /** Three codes already wait on this platform: tell the user to try later. */
  | { kind: "full" }
  /** Approved meanwhile (by another process): let the message through. */
  | { kind: "approved" };

export type PairedUser = ApprovedUser;

export interface PendingUser {
  platform: string;
  userId: string;
  userName?: string;
  createdAt: number;
  expiresAt: number;
  ageMs: number;
}

export interface PairingListing {
  pending: PendingUser[];
  approved: PairedUser[];
  pins: HandlePin[];
  /** platform → end of its approval lockout (only platforms locked now). */
  lockedUntil: Record<string, number>;
}

export class PairingStore {
  /** `tables`: the pairing tables of the profile's state.db. */
  constructor(private readonly tables: PairingTables) {}

  /** Whether the user is approved (a read: never waits). */
  isApproved(platform: string, userId: string): boolean {
    return isPlatformName(platform) && this.tables.isApproved(platform, userId);
  }

  /** The user id `@handle` (lower case, no @) is pinned to on `platform`, if it is pinned. */
  pinnedUser(platform: string, handle: string): string | undefined {
    return isPlatformName(platform) ? this.tables.pinnedUser(platform, handle) : undefined;
  }

  /**
   * Pins `@handle` to `userId` unless it is pinned already (by this or another process); resolves
   * with the id it is pinned to now. Rejects with PairingError for a malformed platform name.
   */
  async pinHandle(platform: string, handle: string, userId: string): Promise<string> {
    checkPlatform(platform);
    return this.tables.pinHandle(platform, handle, userId);
  }

  /** Releases the pin of `@handle`; resolves with the id it was pinned to. Rejects with PairingError when it was not pinned. */
  async unpinHandle(platform: string, handle: string): Promise<string> {
    checkPlatform(platform);
    const name = normaliseHandle(handle);
    const owner = await this.tables.unpinHandle(platform, name);
    if (owner === undefined) throw new PairingError("not_found", `@${name} is not pinned on ${platform}`);
    return owner;
  }

  /** An unknown user wrote in a DM: issue a code unless a limit says otherwise. */
  async requestCode(platform: string, user: { id: string; name?: string }): Promise<PairingRequestResult> {
    checkPlatform(platform);
    // Cheap answers first (reads): a stranger who keeps writing costs no hashing and no write.
    if (this.tables.isApproved(platform, user.id)) return { kind: "approved" };
    if (this.tables.answeredRecently(platform, user.id)) return { kind: "recent" };
    const code = generateCode();
    const outcome = await this.tables.requestCode(platform, user, await hashCode(code));
    return outcome.kind === "issued" ? { kind: "code", code, expiresAt: outcome.expiresAt } : outcome;
  }

  /** Approves the user who was given `code`. Rejects with PairingError (unknown, expired, locked, malformed). */
  async approve(platform: string, codeInput: string): Promise<PairedUser> {
    checkPlatform(platform);
    const code = normaliseCode(codeInput);
    if (!code) {
      throw new PairingError(
        "bad_code",
        `'${codeInput}' is not a pairing code (8 letters and digits, e.g. X7K2M9QP)`,
      );
    }
    const locked = this.tables.lockoutRemainingMs(platform);
    if (locked > 0) throw lockedError(platform, locked);
    let match: { userId: string; hash: string } | undefined;
    for (const request of this.tables.pendingCodes(platform)) {
      if (await codeMatches(code, request)) match = { userId: request.userId, hash: request.hash };
    }
    const outcome = await this.tables.approve(platform, match);
    switch (outcome.kind) {
      case "approved":
        return outcome.user;
      case "locked":
        throw lockedError(platform, outcome.remainingMs);
      case "expired":
        throw new PairingError(
          "expired",
          `code ${code} expired ${Math.round(outcome.agoMs / 60_000)} min ago; the user gets a new one by writing to the bot again`,
        );
      case "unknown":
        throw new PairingError(
          "unknown_code",
          outcome.lockedNow
            ? `no pending request on ${platform} has code ${code}; that was the ${MAX_FAILED_APPROVALS}th wrong code, approvals for ${platform} are locked for 1 h`
            : `no pending request on ${platform} has code ${code} (${MAX_FAILED_APPROVALS - outcome.failures} attempts left before a 1 h lockout)`,
        );
    }
  }

  /** Removes a user's approval and any code waiting for them. Rejects with PairingError when there was neither. */
  async revoke(platform: string, userId: string): Promise<{ approval: boolean; pending: boolean }> {
    checkPlatform(platform);
    const result = await this.tables.revoke(platform, userId);
    if (!result.approval && !result.pending) {
      throw new PairingError("not_found", `${userId} is neither approved nor waiting on ${platform}`);
    }
    return result;
  }

  /** Waiting requests (never their codes) and approved users, of one platform or all. */
  list(platform?: string): PairingListing {
    if (platform !== undefined) checkPlatform(platform);
    const rows = this.tables.list(platform);
    const now = rows.asOf;
    return {
      pending: rows.pending.map((p) => ({
        platform: p.platform,
        userId: p.userId,
        ...(p.userName !== undefined ? { userName: p.userName } : {}),
        createdAt: p.createdAt,
        expiresAt: p.expiresAt,
        ageMs: Math.max(0, now - p.createdAt),
      })),
      approved: rows.approved,
      pins: rows.pins,
      lockedUntil: rows.lockedUntil,
    };
  }
}

/** `@Alice` / `alice` → `alice`: how handles are compared (Telegram's are case-insensitive). */
export function normaliseHandle(handle: string): string {
  return handle.trim().replace(/^@/, "").toLowerCase();
}

function checkPlatform(platform: string): void {
  if (!isPlatformName(platform)) {
    throw new PairingError(
      "bad_platform",
      `'${platform}' is not a platform name (lowercase letters, digits, _ and -; e.g. telegram)`,
    );
  }
}

function lockedError(platform: string, remainingMs: number): PairingError {
  return new PairingError(
    "locked",
    `approvals for ${platform} are locked after ${MAX_FAILED_APPROVALS} wrong codes; try again in ${Math.ceil(remainingMs / 60_000)} min`,
  );
}
