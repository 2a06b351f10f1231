/**
 * The browser judges every request a page makes, and a page asks one host for dozens of images and
 * scripts. A verdict depends only on the scheme and host (the blocklist and the addresses the host
 * resolves to), so it is kept per origin host for a short while and shared by concurrent requests:
 * one lookup per host, not one per request. A refusal the model reads is kept just as briefly.
 */
import type { UrlChecker, UrlVerdict } from "./guard.js";

/** How long a verdict stands (Chromium keeps its own host cache about as long). */
export const VERDICT_TTL_MS = 30_000;
/** Hosts remembered at once; the oldest go first. */
const MAX_HOSTS = 500;

/** `check` with its verdicts kept per scheme and host for `ttlMs`. Never throws. */
export function cachedChecker(
  check: UrlChecker,
  ttlMs = VERDICT_TTL_MS,
  now: () => number = Date.now,
): UrlChecker {
  const verdicts = new Map<string, { at: number; verdict: Promise<UrlVerdict> }>();
  return (url) => {
    let key: string;
    try {
      const u = new URL(url);
      key = `${u.protocol}//${u.hostname}`;
    } catch {
      return check(url);
    }
    const t = now();
    const hit = verdicts.get(key);
    if (hit && t - hit.at < ttlMs) return hit.verdict;
    verdicts.delete(key);
    if (verdicts.size >= MAX_HOSTS) verdicts.delete(verdicts.keys().next().value!);
    const verdict = check(url);
    verdicts.set(key, { at: t, verdict });
    return verdict;
  };
}
