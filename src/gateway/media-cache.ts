/**
 * The media caches under HERMES_HOME/cache: files users send (one folder per platform) and files
 * tools made (images, audio, screenshots). Nothing else ever deletes them, so the gateway keeps them
 * within an age and a total size (`gateway.media_cache_max_age_hours`, `gateway.media_cache_max_mb`):
 * at start and then every hour, files past the age go, then the oldest until the total fits.
 */
import type { Dirent } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";

/** Folders under cache/ where tools save the media they make (see tools/builtin/media, browser). */
export const GENERATED_MEDIA_DIRS = ["images", "audio", "screenshots"] as const;

/** Files this young are kept by the size limit: they may belong to a message being answered. */
export const RECENT_GRACE_MS = 5 * 60_000;
const PRUNE_EVERY_MS = 3600_000;

export interface MediaCacheLimits {
  /** Total bytes kept across the folders; 0 = no size limit. */
  maxBytes: number;
  /** Files older than this (by modification time) go; 0 = no age limit. */
  maxAgeMs: number;
}

export interface PruneReport {
  removed: number;
  freedBytes: number;
  keptBytes: number;
}

interface CachedFile {
  path: string;
  bytes: number;
  mtimeMs: number;
}

/** Every regular file under `dir`, recursively; a folder that is missing or unreadable has none. */
async function filesUnder(dir: string): Promise<CachedFile[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: CachedFile[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) {
      const info = await stat(path).catch(() => undefined);
      if (info) out.push({ path, bytes: info.size, mtimeMs: info.mtimeMs });
    }
  }
  return out;
}

/** Removes what is over the limits from `dirs`. Never throws: a file that cannot go is left. */
export async function pruneMediaCache(
  dirs: readonly string[],
  limits: MediaCacheLimits,
  now = Date.now(),
): Promise<PruneReport> {
  const files = (await Promise.all(dirs.map(filesUnder))).flat().sort((a, b) => a.mtimeMs - b.mtimeMs);
  const report: PruneReport = { removed: 0, freedBytes: 0, keptBytes: 0 };
  let total = files.reduce((n, f) => n + f.bytes, 0);
  for (const file of files) {
    const expired = limits.maxAgeMs > 0 && now - file.mtimeMs > limits.maxAgeMs;
    const over = limits.maxBytes > 0 && total > limits.maxBytes && now - file.mtimeMs > RECENT_GRACE_MS;
    if (!expired && !over) continue;
    try {
      await rm(file.path, { force: true });
      report.removed++;
      report.freedBytes += file.bytes;
      total -= file.bytes;
    } catch {
      // Someone else's file, or already gone: it stays counted.
    }
  }
  report.keptBytes = total;
  return report;
}

export interface MediaCacheOptions {
  dirs: readonly string[];
  limits: MediaCacheLimits;
  log: (level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
  /** Milliseconds between two prunes (default 1 h). */
  everyMs?: number;
}

/** The gateway's pruner: once at start, then on an unref'd timer until stopped. */
export class MediaCache {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<PruneReport> | undefined;

  constructor(private readonly o: MediaCacheOptions) {}

  /** Prunes now (a prune already running is joined, not doubled). */
  prune(): Promise<PruneReport> {
    this.running ??= pruneMediaCache(this.o.dirs, this.o.limits)
      .then((report) => {
        if (report.removed > 0) this.o.log("info", "media cache pruned", { ...report });
        return report;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  start(): void {
    if (this.o.limits.maxBytes <= 0 && this.o.limits.maxAgeMs <= 0) return;
    void this.prune();
    this.timer = setInterval(() => void this.prune(), this.o.everyMs ?? PRUNE_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

/** The media folders of a gateway: each platform's downloads and the folders tools save media in. */
export function mediaCacheDirs(cacheRoot: string, platforms: readonly string[]): string[] {
  return [...new Set([...platforms, ...GENERATED_MEDIA_DIRS])].map((dir) => join(cacheRoot, dir));
}

/** The limits from config: `gateway.media_cache_max_mb` and `gateway.media_cache_max_age_hours`. */
export function mediaCacheLimits(gateway: {
  media_cache_max_mb: number;
  media_cache_max_age_hours: number;
}): MediaCacheLimits {
  return {
    maxBytes: Math.max(0, gateway.media_cache_max_mb) * 1024 * 1024,
    maxAgeMs: Math.max(0, gateway.media_cache_max_age_hours) * 3600_000,
  };
}
