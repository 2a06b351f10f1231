import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MediaCache, mediaCacheLimits, pruneMediaCache } from "../../src/gateway/media-cache.js";
import { tempDir } from "../support/temp.js";
import { useGateway } from "./support/gateway.js";

const HOUR = 3600_000;
const MB = 1024 * 1024;

/** A file of `bytes` bytes last modified `ageMs` ago. */
function cached(dir: string, name: string, bytes: number, ageMs: number): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, Buffer.alloc(bytes, 1));
  const at = (Date.now() - ageMs) / 1000;
  utimesSync(path, at, at);
  return path;
}

const g = useGateway();

describe("media cache limits", () => {
  it("removes files past the age limit, in every folder and below", () => {
    const root = tempDir("hermes-media-");
    const telegram = join(root, "telegram");
    const images = join(root, "images");
    const old = cached(telegram, "1-0-photo.jpg", 10, 200 * HOUR);
    const nested = cached(join(images, "sub"), "old.png", 10, 169 * HOUR);
    const fresh = cached(telegram, "2-0-voice.ogg", 10, HOUR);
    return pruneMediaCache(
      [telegram, images, join(root, "missing")],
      mediaCacheLimits({
        media_cache_max_mb: 0,
        media_cache_max_age_hours: 168,
      }),
    ).then((report) => {
      expect(report).toEqual({ removed: 2, freedBytes: 20, keptBytes: 10 });
      expect([existsSync(old), existsSync(nested), existsSync(fresh)]).toEqual([false, false, true]);
    });
  });

  it("removes the oldest files until the total fits, but never one younger than five minutes", async () => {
    const root = tempDir("hermes-media-");
    const a = cached(join(root, "telegram"), "a", MB, 5 * HOUR);
    const b = cached(join(root, "audio"), "b", MB, 4 * HOUR);
    const c = cached(join(root, "telegram"), "c", MB, 3 * HOUR);
    const justNow = cached(join(root, "telegram"), "d", 2 * MB, 1000);
    const report = await pruneMediaCache([join(root, "telegram"), join(root, "audio")], {
      maxBytes: 3 * MB,
      maxAgeMs: 0,
    });
    expect(report).toEqual({ removed: 2, freedBytes: 2 * MB, keptBytes: 3 * MB });
    expect([a, b, c, justNow].map((p) => existsSync(p))).toEqual([false, false, true, true]);
    // Over the limit with only young files left: they stay.
    const again = await pruneMediaCache([join(root, "telegram")], { maxBytes: 1, maxAgeMs: 0 });
    expect(again.removed).toBe(1);
    expect(existsSync(justNow)).toBe(true);
  });

  it("prunes once at start and logs what went; zero limits leave everything", async () => {
    const root = tempDir("hermes-media-");
    const old = cached(root, "old", 10, 10 * HOUR);
    const logs: string[] = [];
    const off = new MediaCache({ dirs: [root], limits: { maxBytes: 0, maxAgeMs: 0 }, log: () => {} });
    off.start();
    await off.stop();
    expect(existsSync(old)).toBe(true);

    const cache = new MediaCache({
      dirs: [root],
      limits: { maxBytes: 0, maxAgeMs: HOUR },
      log: (_level, message, fields) => logs.push(`${message} ${JSON.stringify(fields)}`),
    });
    cache.start();
    await cache.stop();
    expect(existsSync(old)).toBe(false);
    expect(logs).toEqual(['media cache pruned {"removed":1,"freedBytes":10,"keptBytes":0}']);
  });

  it("are applied by the gateway when it starts, to its platforms' downloads and the tools' media", async () => {
    const gw = await g.start("gateway:\n  media_cache_max_age_hours: 24\n");
    const cache = gw.t.runtime.paths.cache;
    const old = [
      cached(join(cache, "memchat"), "1-0-photo.jpg", 10, 48 * HOUR),
      cached(join(cache, "images"), "x.png", 10, 30 * HOUR),
    ];
    const kept = [
      cached(join(cache, "memchat"), "2-0-photo.jpg", 10, HOUR),
      cached(join(cache, "skills-elsewhere"), "y", 10, 48 * HOUR),
    ];
    const again = await gw.restart();
    await again.adapter.waitFor(() => old.every((p) => !existsSync(p)), "the old files to go");
    expect(kept.map((p) => existsSync(p))).toEqual([true, true]);
  });
});
