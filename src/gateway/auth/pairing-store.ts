/**
 * DM pairing: an unknown user who writes to the bot gets a one-time code; the owner approves it
 * with `hermes pairing approve PLATFORM CODE` (another process), and from the next message on the
 * user may talk to the agent. Limits keep the bot from being a code-spraying target: codes live 1 h,
 * at most 3 wait per platform, a user gets at most one reply per 10 min, and 5 wrong approve
 * attempts lock the platform's approvals for 1 h.
 */
import { codeMatches, generateCode, hashCode, normaliseCode } from "./pairing-code.js";
import {
  type ApprovedRecord,
  type HandlePinRecord,
  isPlatformName,
  PairingFiles,
  type PendingRecord,
  type RateLimitsRecord,
} from "./pairing-files.js";

export const CODE_TTL_MS = 60 * 60 * 1000;
export const MAX_PENDING_PER_PLATFORM = 3;
export const REQUEST_INTERVAL_MS = 10 * 60 * 1000;
export const MAX_FAILED_APPROVALS = 5;
export const LOCKOUT_MS = 60 * 60 * 1000;
/** Expired requests are kept this long so that approving one says "expired", not "unknown". */
const EXPIRED_KEPT_MS = 60 * 60 * 1000;

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

export interface PairedUser {
  platform: string;
  userId: string;
  userName?: string;
  approvedAt: number;
}

export interface PendingUser {
  platform: string;
  userId: string;
  userName?: string;
  createdAt: number;
  expiresAt: number;
  ageMs: number;
}

/** An `@handle` allowlist entry and the account it was pinned to. */
export interface HandlePin {
  platform: string;
  /** Lower case, without the @. */
  handle: string;
  userId: string;
  pinnedAt: number;
}

export interface PairingListing {
  pending: PendingUser[];
  approved: PairedUser[];
  pins: HandlePin[];
  /** platform → end of its approval lockout (only platforms locked now). */
  lockedUntil: Record<string, number>;
}

export interface PairingStoreOptions {
  home: string;
  now?: () => number;
}

export class PairingStore {
  private readonly files: PairingFiles;
  private readonly now: () => number;
  /** platform → approved user ids, with the identity of the file they were read from. */
  private readonly approvedCache = new Map<string, { identity: string; users: Set<string> }>();
  /** platform → handle → pinned user id, with the identity of the file they were read from. */
  private readonly pinCache = new Map<string, { identity: string; pins: Map<string, string> }>();

  constructor(options: PairingStoreOptions) {
    this.files = new PairingFiles(options.home);
    this.now = options.now ?? Date.now;
  }

  get dir(): string {
    return this.files.dir;
  }

  /** Whether the user is approved; re-reads the file only when another write replaced it. */
  isApproved(platform: string, userId: string): boolean {
    if (!isPlatformName(platform)) return false;
    const path = this.files.approvedPath(platform);
    const identity = this.files.identity(path);
    let cached = this.approvedCache.get(platform);
    if (cached?.identity !== identity) {
      const users = new Set(this.files.readApproved(platform).map((u) => u.user_id));
      cached = { identity, users };
      this.approvedCache.set(platform, cached);
    }
    return cached.users.has(userId);
  }

  /** The user id `@handle` (lower case, no @) is pinned to on `platform`, if it is pinned. */
  pinnedUser(platform: string, handle: string): string | undefined {
    if (!isPlatformName(platform)) return undefined;
    const identity = this.files.identity(this.files.handlesPath(platform));
    let cached = this.pinCache.get(platform);
    if (cached?.identity !== identity) {
      const pins = new Map(this.files.readPins(platform).map((p) => [p.handle, p.user_id]));
      cached = { identity, pins };
      this.pinCache.set(platform, cached);
    }
    return cached.pins.get(handle);
  }

  /**
   * Pins `@handle` to `userId` unless it is pinned already (by this or another process); returns
   * the id it is pinned to now. Throws PairingError for a malformed platform name.
   */
  pinHandle(platform: string, handle: string, userId: string): string {
    checkPlatform(platform);
    return this.files.locked(() => {
      const pins = this.files.readPins(platform, true);
      const existing = pins.find((p) => p.handle === handle);
      if (existing) return existing.user_id;
      const record: HandlePinRecord = { handle, user_id: userId, pinned_at: this.now() };
      this.files.writePins(platform, [...pins, record]);
      return userId;
    });
  }

  /** Releases the pin of `@handle`; returns the id it was pinned to. Throws PairingError when it was not pinned. */
  unpinHandle(platform: string, handle: string): string {
    checkPlatform(platform);
    const name = normaliseHandle(handle);
    return this.files.locked(() => {
      const pins = this.files.readPins(platform, true);
      const pin = pins.find((p) => p.handle === name);
      if (!pin) throw new PairingError("not_found", `@${name} is not pinned on ${platform}`);
      this.files.writePins(
        platform,
        pins.filter((p) => p !== pin),
      );
      return pin.user_id;
    });
  }

  /** An unknown user wrote in a DM: issue a code unless a limit says otherwise. */
  requestCode(platform: string, user: { id: string; name?: string }): PairingRequestResult {
    checkPlatform(platform);
    return this.files.locked(() => {
      const now = this.now();
      if (this.files.readApproved(platform, true).some((u) => u.user_id === user.id)) {
        return { kind: "approved" };
      }
      const limits = this.files.readRateLimits(true);
      pruneRequests(limits, now);
      const last = limits.requests[platform]?.[user.id];
      if (last !== undefined && now - last < REQUEST_INTERVAL_MS) return { kind: "recent" };
      const pending = this.files
        .readPending(platform, true)
        .filter((r) => r.expires_at + EXPIRED_KEPT_MS > now);
      const waiting = pending.filter((r) => r.expires_at > now && r.user_id !== user.id);
      limits.requests[platform] = { ...limits.requests[platform], [user.id]: now };
      if (waiting.length >= MAX_PENDING_PER_PLATFORM) {
        this.files.writeRateLimits(limits);
        return { kind: "full" };
      }
      const code = generateCode();
      const record: PendingRecord = {
        user_id: user.id,
        ...(user.name ? { user_name: user.name } : {}),
        ...hashCode(code),
        created_at: now,
        expires_at: now + CODE_TTL_MS,
      };
      // A user's newer code replaces their older one: only the latest was shown to them.
      this.files.writePending(platform, [...pending.filter((r) => r.user_id !== user.id), record]);
      this.files.writeRateLimits(limits);
      return { kind: "code", code, expiresAt: record.expires_at };
    });
  }

  /** Approves the user who was given `code`. Throws PairingError (unknown, expired, locked, malformed). */
  approve(platform: string, codeInput: string): PairedUser {
    checkPlatform(platform);
    const code = normaliseCode(codeInput);
    if (!code) {
      throw new PairingError(
        "bad_code",
        `'${codeInput}' is not a pairing code (8 letters and digits, e.g. X7K2M9QP)`,
      );
    }
    return this.files.locked(() => {
      const now = this.now();
      const limits = this.files.readRateLimits(true);
      const state = limits.approvals[platform] ?? { failures: 0 };
      if (state.locked_until !== undefined && state.locked_until > now) {
        const minutes = Math.ceil((state.locked_until - now) / 60_000);
        throw new PairingError(
          "locked",
          `approvals for ${platform} are locked after ${MAX_FAILED_APPROVALS} wrong codes; try again in ${minutes} min`,
        );
      }
      const pending = this.files.readPending(platform, true);
      const match = pending.find((r) => codeMatches(code, r));
      if (!match) {
        const failures = (state.failures ?? 0) + 1;
        const locked = failures >= MAX_FAILED_APPROVALS;
        limits.approvals[platform] = locked ? { failures: 0, locked_until: now + LOCKOUT_MS } : { failures };
        this.files.writeRateLimits(limits);
        throw new PairingError(
          "unknown_code",
          locked
            ? `no pending request on ${platform} has code ${code}; that was the ${MAX_FAILED_APPROVALS}th wrong code, approvals for ${platform} are locked for 1 h`
            : `no pending request on ${platform} has code ${code} (${MAX_FAILED_APPROVALS - failures} attempts left before a 1 h lockout)`,
        );
      }
      this.files.writePending(
        platform,
        pending.filter((r) => r !== match),
      );
      if (match.expires_at <= now) {
        throw new PairingError(
          "expired",
          `code ${code} expired ${Math.round((now - match.expires_at) / 60_000)} min ago; the user gets a new one by writing to the bot again`,
        );
      }
      const approved: ApprovedRecord = {
        user_id: match.user_id,
        ...(match.user_name ? { user_name: match.user_name } : {}),
        approved_at: now,
      };
      const users = this.files.readApproved(platform, true).filter((u) => u.user_id !== match.user_id);
      this.files.writeApproved(platform, [...users, approved]);
      limits.approvals[platform] = { failures: 0 };
      this.files.writeRateLimits(limits);
      return toPaired(platform, approved);
    });
  }

  /** Removes a user's approval and any code waiting for them. Throws PairingError when there was neither. */
  revoke(platform: string, userId: string): { approval: boolean; pending: boolean } {
    checkPlatform(platform);
    return this.files.locked(() => {
      const users = this.files.readApproved(platform, true);
      const keptUsers = users.filter((u) => u.user_id !== userId);
      const pending = this.files.readPending(platform, true);
      const keptPending = pending.filter((r) => r.user_id !== userId);
      const result = {
        approval: keptUsers.length < users.length,
        pending: keptPending.length < pending.length,
      };
      if (!result.approval && !result.pending) {
        throw new PairingError("not_found", `${userId} is neither approved nor waiting on ${platform}`);
      }
      if (result.approval) this.files.writeApproved(platform, keptUsers);
      if (result.pending) this.files.writePending(platform, keptPending);
      return result;
    });
  }

  /** Waiting requests (never their codes) and approved users, of one platform or all. */
  list(platform?: string): PairingListing {
    if (platform !== undefined) checkPlatform(platform);
    const now = this.now();
    const platforms = platform !== undefined ? [platform] : this.files.platforms();
    const limits = this.files.readRateLimits();
    const listing: PairingListing = { pending: [], approved: [], pins: [], lockedUntil: {} };
    for (const p of platforms) {
      for (const r of this.files.readPending(p)) {
        if (r.expires_at <= now) continue;
        listing.pending.push({
          platform: p,
          userId: r.user_id,
          ...(r.user_name ? { userName: r.user_name } : {}),
          createdAt: r.created_at,
          expiresAt: r.expires_at,
          ageMs: now - r.created_at,
        });
      }
      for (const u of this.files.readApproved(p)) listing.approved.push(toPaired(p, u));
      for (const pin of this.files.readPins(p)) {
        listing.pins.push({ platform: p, handle: pin.handle, userId: pin.user_id, pinnedAt: pin.pinned_at });
      }
    }
    for (const [p, state] of Object.entries(limits.approvals)) {
      if (platform !== undefined && p !== platform) continue;
      if (typeof state?.locked_until === "number" && state.locked_until > now) {
        listing.lockedUntil[p] = state.locked_until;
      }
    }
    return listing;
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

function toPaired(platform: string, u: ApprovedRecord): PairedUser {
  return {
    platform,
    userId: u.user_id,
    ...(u.user_name ? { userName: u.user_name } : {}),
    approvedAt: u.approved_at,
  };
}

/** Drops reply times older than the interval, so the file does not grow with every stranger. */
function pruneRequests(limits: RateLimitsRecord, now: number): void {
  for (const [platform, users] of Object.entries(limits.requests)) {
    const kept = Object.entries(users ?? {}).filter(
      ([, at]) => typeof at === "number" && now - at < REQUEST_INTERVAL_MS,
    );
    if (kept.length === 0) delete limits.requests[platform];
    else limits.requests[platform] = Object.fromEntries(kept);
  }
}
