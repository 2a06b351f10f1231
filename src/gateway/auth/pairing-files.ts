/**
 * The pairing folder on disk: HERMES_HOME/platforms/pairing/ (0700) with `<platform>-pending.json`,
 * `<platform>-approved.json`, `<platform>-handles.json` (allowlist handles pinned to user ids) and
 * `_rate_limits.json` (0600). The gateway and `hermes pairing` run in
 * different processes, so every read-modify-write happens under one lock file and every write is
 * atomic (temp file + rename): a reader never sees half a file.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { lockFileSync } from "../../core/file-lock.js";
import { writeFileAtomic } from "../../core/fs.js";
import { isRecord } from "../../core/is-record.js";

/** One unknown user's request, with the code only as a salted hash. */
export interface PendingRecord {
  user_id: string;
  user_name?: string;
  salt: string;
  hash: string;
  /** Milliseconds since the epoch. */
  created_at: number;
  expires_at: number;
}

export interface ApprovedRecord {
  user_id: string;
  user_name?: string;
  approved_at: number;
}

/** An `@handle` allowlist entry pinned to the id of the account that first matched it. */
export interface HandlePinRecord {
  /** Lower case, without the @. */
  handle: string;
  user_id: string;
  pinned_at: number;
}

export interface RateLimitsRecord {
  /** platform → user id → when that user last got a pairing reply. */
  requests: Record<string, Record<string, number>>;
  /** platform → failed approve attempts since the last success or lockout, and the lockout's end. */
  approvals: Record<string, { failures: number; locked_until?: number }>;
}

const PLATFORM_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** A platform name that can safely name a file (letters, digits, _ and -). */
export function isPlatformName(name: string): boolean {
  return PLATFORM_NAME.test(name);
}

export class PairingFiles {
  readonly dir: string;
  private readonly lockPath: string;

  constructor(home: string) {
    this.dir = join(home, "platforms", "pairing");
    this.lockPath = join(this.dir, ".lock");
  }

  pendingPath = (platform: string): string => join(this.dir, `${platform}-pending.json`);
  approvedPath = (platform: string): string => join(this.dir, `${platform}-approved.json`);
  handlesPath = (platform: string): string => join(this.dir, `${platform}-handles.json`);
  rateLimitsPath = (): string => join(this.dir, "_rate_limits.json");

  /** Runs `fn` holding the pairing lock (shared with every other Hermes process of this home). */
  locked<T>(fn: () => T): T {
    this.ensureDir();
    const release = lockFileSync(this.lockPath);
    try {
      return fn();
    } finally {
      release();
    }
  }

  readPending(platform: string, repair = false): PendingRecord[] {
    const data = this.read(this.pendingPath(platform), repair);
    const list = isRecord(data) && Array.isArray(data.requests) ? data.requests : [];
    return list.filter(
      (r): r is PendingRecord =>
        isRecord(r) &&
        typeof r.user_id === "string" &&
        typeof r.salt === "string" &&
        typeof r.hash === "string" &&
        typeof r.created_at === "number" &&
        typeof r.expires_at === "number",
    );
  }

  readApproved(platform: string, repair = false): ApprovedRecord[] {
    const data = this.read(this.approvedPath(platform), repair);
    const list = isRecord(data) && Array.isArray(data.users) ? data.users : [];
    return list.filter(
      (r): r is ApprovedRecord =>
        isRecord(r) && typeof r.user_id === "string" && typeof r.approved_at === "number",
    );
  }

  readPins(platform: string, repair = false): HandlePinRecord[] {
    const data = this.read(this.handlesPath(platform), repair);
    const list = isRecord(data) && Array.isArray(data.pins) ? data.pins : [];
    return list.filter(
      (r): r is HandlePinRecord =>
        isRecord(r) &&
        typeof r.handle === "string" &&
        typeof r.user_id === "string" &&
        typeof r.pinned_at === "number",
    );
  }

  readRateLimits(repair = false): RateLimitsRecord {
    const data = this.read(this.rateLimitsPath(), repair);
    const requests = isRecord(data) && isRecord(data.requests) ? data.requests : {};
    const approvals = isRecord(data) && isRecord(data.approvals) ? data.approvals : {};
    return {
      requests: requests as RateLimitsRecord["requests"],
      approvals: approvals as RateLimitsRecord["approvals"],
    };
  }

  writePending(platform: string, requests: PendingRecord[]): void {
    this.write(this.pendingPath(platform), { version: 1, requests });
  }

  writeApproved(platform: string, users: ApprovedRecord[]): void {
    this.write(this.approvedPath(platform), { version: 1, users });
  }

  writePins(platform: string, pins: HandlePinRecord[]): void {
    this.write(this.handlesPath(platform), { version: 1, pins });
  }

  writeRateLimits(limits: RateLimitsRecord): void {
    this.write(this.rateLimitsPath(), { version: 1, ...limits });
  }

  /** Changes whenever the file is replaced (every write renames a new file into place). */
  identity(path: string): string {
    try {
      const s = statSync(path);
      return `${s.ino}:${s.mtimeMs}:${s.size}`;
    } catch {
      return "missing";
    }
  }

  /** Platforms that have pairing files. */
  platforms(): string[] {
    if (!existsSync(this.dir)) return [];
    const names = new Set<string>();
    for (const file of readdirSync(this.dir)) {
      const m = /^(.+)-(pending|approved|handles)\.json$/.exec(file);
      if (m && isPlatformName(m[1]!)) names.add(m[1]!);
    }
    return [...names].sort();
  }

  private ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
  }

  /**
   * Parsed JSON, or undefined when the file is missing or unreadable. With `repair` (a writer under
   * the lock) a corrupt file is moved aside rather than silently overwritten, so nothing is lost.
   */
  private read(path: string, repair: boolean): unknown {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
    try {
      return JSON.parse(text);
    } catch {
      if (repair) renameSync(path, `${path}.corrupt-${Date.now()}`);
      return undefined;
    }
  }

  private write(path: string, data: unknown): void {
    writeFileAtomic(path, `${JSON.stringify(data, null, 2)}\n`, 0o600);
  }
}
