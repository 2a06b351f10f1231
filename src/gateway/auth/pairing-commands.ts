/**
 * `hermes pairing list | approve | revoke`: the owner's side of DM pairing (and of allowlist
 * handles pinned to accounts: `revoke PLATFORM @handle` releases one). Runs beside a live
 * gateway: both use the pairing tables of the profile's state.db, and the gateway picks an approval
 * up at the user's next message. Exit codes: 0 done, 1 failed (unknown or expired code, lockout,
 * nothing to revoke, state.db unusable), 2 usage (a malformed platform name).
 */
import { ensureHermesHome, getHermesHome } from "../../core/home.js";
import { openStateStore } from "../../state/open.js";
import { PairingError, PairingStore } from "./pairing-store.js";

const out = (text: string): void => void process.stdout.write(`${text}\n`);
const err = (text: string): void => void process.stderr.write(`hermes: ${text}\n`);

/** Runs one action on the profile's pairing tables, mapping its failures to exit codes and a one-line message. */
async function run(action: (store: PairingStore) => Promise<number> | number): Promise<number> {
  const opened = openStateStore(ensureHermesHome(getHermesHome()).stateDb);
  if ("error" in opened) {
    err(opened.error.message);
    return 1;
  }
  try {
    return await action(new PairingStore(opened.store.pairing));
  } catch (e) {
    if (e instanceof PairingError) {
      err(e.message);
      return e.reason === "bad_platform" ? 2 : 1;
    }
    err((e as Error).message);
    return 1;
  } finally {
    await opened.store.close();
  }
}

const ago = (ms: number): string => {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} days ago`;
};

const who = (u: { userId: string; userName?: string }): string =>
  u.userName ? `${u.userId} (${u.userName})` : u.userId;

export function pairingList(opts: { json?: boolean; platform?: string }): Promise<number> {
  return run((store) => {
    const listing = store.list(opts.platform);
    if (opts.json) {
      out(
        JSON.stringify(
          {
            pending: listing.pending.map((p) => ({
              platform: p.platform,
              user_id: p.userId,
              user_name: p.userName ?? null,
              age_seconds: Math.floor(p.ageMs / 1000),
              expires_at: new Date(p.expiresAt).toISOString(),
            })),
            approved: listing.approved.map((a) => ({
              platform: a.platform,
              user_id: a.userId,
              user_name: a.userName ?? null,
              approved_at: new Date(a.approvedAt).toISOString(),
            })),
            pinned_handles: listing.pins.map((p) => ({
              platform: p.platform,
              handle: `@${p.handle}`,
              user_id: p.userId,
              pinned_at: new Date(p.pinnedAt).toISOString(),
            })),
            locked_until: Object.fromEntries(
              Object.entries(listing.lockedUntil).map(([p, t]) => [p, new Date(t).toISOString()]),
            ),
          },
          null,
          2,
        ),
      );
      return 0;
    }
    out("Pending (approve with: hermes pairing approve PLATFORM CODE):");
    if (listing.pending.length === 0) out("  none");
    for (const p of listing.pending) out(`  ${p.platform}  ${who(p)}  asked ${ago(p.ageMs)}`);
    out("Approved:");
    if (listing.approved.length === 0) out("  none");
    for (const a of listing.approved) {
      out(`  ${a.platform}  ${who(a)}  since ${new Date(a.approvedAt).toISOString().slice(0, 16)}Z`);
    }
    if (listing.pins.length > 0) {
      out("Allowlist handles pinned to accounts (release with: hermes pairing revoke PLATFORM @HANDLE):");
      for (const p of listing.pins) {
        out(
          `  ${p.platform}  @${p.handle} → ${p.userId}  since ${new Date(p.pinnedAt).toISOString().slice(0, 16)}Z`,
        );
      }
    }
    for (const [p, until] of Object.entries(listing.lockedUntil)) {
      out(`Approvals for ${p} are locked until ${new Date(until).toISOString()} (too many wrong codes).`);
    }
    return 0;
  });
}

export function pairingApprove(platform: string, code: string): Promise<number> {
  return run(async (store) => {
    const user = await store.approve(platform, code);
    out(`Approved ${who(user)} on ${platform}. They can talk to Hermes from their next message.`);
    return 0;
  });
}

export function pairingRevoke(platform: string, userId: string): Promise<number> {
  return run(async (store) => {
    if (userId.startsWith("@")) {
      const owner = await store.unpinHandle(platform, userId);
      out(
        `Released ${userId.toLowerCase()} on ${platform} (it was pinned to ${owner}); it pins to the next account that carries it.`,
      );
      return 0;
    }
    const result = await store.revoke(platform, userId);
    const what = [result.approval ? "approval" : "", result.pending ? "pending code" : ""].filter(Boolean);
    out(`Removed the ${what.join(" and ")} of ${userId} on ${platform}.`);
    return 0;
  });
}
