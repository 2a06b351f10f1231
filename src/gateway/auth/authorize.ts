/**
 * Who may talk to the agent, decided for every inbound message before anything reaches the model.
 * Order: the platform's allow-all flag → allowlists (config and `<PLATFORM>_ALLOWED_USERS`) →
 * users approved by pairing → `GATEWAY_ALLOW_ALL_USERS` → deny. An `@handle` entry matches the
 * first account that carries the handle and is then pinned to that account's id (handles can
 * change hands; ids cannot): later, only that id matches it, whatever handle it carries. Webhook messages are let through:
 * their HMAC signature was checked by the adapter. A denied DM gets a pairing code (or nothing,
 * with `unauthorized_dm_behavior: ignore`); a denied group message never gets a reply.
 */
import type { HermesConfig } from "../../core/config.js";
import { isRecord } from "../../core/is-record.js";
import type { PairingTables } from "../../state/pairing.js";
import type { InboundMessage } from "../types.js";
import { normaliseHandle, PairingStore } from "./pairing-store.js";

export type AuthDecision = { allowed: true } | { allowed: false; reply?: string };

export interface GatewayAuthOptions {
  /** The pairing tables of the profile's state.db (shared with `hermes pairing`). */
  pairing: PairingTables;
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  log?: (level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
}

/** Platforms whose messages were authenticated by the adapter itself (a signature). */
const SELF_AUTHENTICATED = new Set(["webhook"]);

const TRUTHY = new Set(["true", "1", "yes", "on"]);

export class GatewayAuth {
  private readonly config: HermesConfig;
  private readonly env: NodeJS.ProcessEnv;
  private readonly store: PairingStore;
  private readonly log: NonNullable<GatewayAuthOptions["log"]>;
  /** Senders already warned about carrying a handle pinned to someone else (one line each). */
  private readonly warned = new Set<string>();

  constructor(options: GatewayAuthOptions) {
    this.config = options.config;
    this.env = options.env;
    this.store = new PairingStore(options.pairing);
    this.log = options.log ?? (() => {});
  }

  /** Never rejects: a failure to read or write the pairing tables denies, silently. */
  async check(m: InboundMessage): Promise<AuthDecision> {
    try {
      if (await this.isAllowed(m)) return { allowed: true };
      return await this.deny(m);
    } catch (err) {
      this.log("error", "authorization failed; message denied", {
        platform: m.platform,
        user: m.userId,
        error: (err as Error).message,
      });
      return { allowed: false };
    }
  }

  /** Whether the sender may talk to the agent now, with no pairing reply (a message run again). Never rejects. */
  async allows(m: InboundMessage): Promise<boolean> {
    try {
      return await this.isAllowed(m);
    } catch {
      return false;
    }
  }

  private async isAllowed(m: InboundMessage): Promise<boolean> {
    if (SELF_AUTHENTICATED.has(m.platform)) return true;
    const settings = this.platformSettings(m.platform);
    if (settings.allowAll) return true;
    for (const entry of this.allowlist(m.platform, settings.allowed)) {
      if (await this.matches(entry, m)) return true;
    }
    if (this.store.isApproved(m.platform, m.userId)) return true;
    return TRUTHY.has((this.env.GATEWAY_ALLOW_ALL_USERS ?? "").trim().toLowerCase());
  }

  /** An id entry matches the sender's id; an `@handle` entry, the account it is pinned to. */
  private async matches(entry: string, m: InboundMessage): Promise<boolean> {
    if (!entry.startsWith("@")) return entry === m.userId;
    const handle = normaliseHandle(entry);
    const carries = m.userHandle !== undefined && normaliseHandle(m.userHandle) === handle;
    const owner =
      this.store.pinnedUser(m.platform, handle) ?? (carries ? await this.pin(m, handle) : undefined);
    if (owner === m.userId) return true;
    if (carries && !this.warned.has(`${m.platform}:${handle}:${m.userId}`)) {
      this.warned.add(`${m.platform}:${handle}:${m.userId}`);
      this.log(
        "warn",
        `allowlist handle @${handle} is pinned to another user; this one is not let in by it`,
        {
          platform: m.platform,
          user: m.userId,
          pinnedTo: owner,
        },
      );
    }
    return false;
  }

  /** Pins `@handle` to the sender (unless another process pinned it first); returns the owner. */
  private async pin(m: InboundMessage, handle: string): Promise<string> {
    const owner = await this.store.pinHandle(m.platform, handle, m.userId);
    if (owner === m.userId) {
      this.log("info", "allowlist handle pinned", {
        platform: m.platform,
        handle: `@${handle}`,
        user: m.userId,
      });
    }
    return owner;
  }

  private async deny(m: InboundMessage): Promise<AuthDecision> {
    // Groups, channels and button presses from strangers never get an answer: a bot that replies
    // to everyone in a group is noise, and pairing codes belong in private.
    if (m.chatType !== "dm" || m.action) return { allowed: false };
    if (String(this.config.unauthorized_dm_behavior).toLowerCase() !== "pair") return { allowed: false };
    const result = await this.store.requestCode(m.platform, {
      id: m.userId,
      ...(m.userName ? { name: m.userName } : {}),
    });
    switch (result.kind) {
      case "approved":
        return { allowed: true };
      case "recent":
        return { allowed: false };
      case "full":
        this.log("warn", "pairing request refused: too many pending codes", {
          platform: m.platform,
          user: m.userId,
        });
        return {
          allowed: false,
          reply: "Hi! I can't take new pairing requests right now. Please try again later.",
        };
      case "code":
        this.log("info", "pairing code issued", { platform: m.platform, user: m.userId, name: m.userName });
        return {
          allowed: false,
          reply: `Hi! I don't know you yet. Pairing code: ${result.code} — ask the owner to run: hermes pairing approve ${m.platform} ${result.code}`,
        };
    }
  }

  /**
   * `platforms.<name>` and its `extra` block (the original kept settings in either): allow-all in
   * either counts, and the allowlists of both add up.
   */
  private platformSettings(platform: string): { allowAll: boolean; allowed: unknown[] } {
    const all = this.config.platforms as unknown as Record<string, unknown>;
    const own = isRecord(all[platform]) ? all[platform] : {};
    const extra = isRecord(own.extra) ? own.extra : {};
    return {
      allowAll: own.allow_all_users === true || extra.allow_all_users === true,
      allowed: [own.allowed_users, extra.allowed_users],
    };
  }

  private allowlist(platform: string, allowed: unknown[]): string[] {
    const envName = `${platform.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_ALLOWED_USERS`;
    return [...allowed.flatMap(listOf), ...listOf(this.env[envName])];
  }
}

/** A list from config (YAML list of ids, numbers included) or a comma-separated string. */
function listOf(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  return items
    .filter((v) => typeof v === "string" || typeof v === "number")
    .map((v) => String(v).trim())
    .filter((v) => v.length > 0);
}
