/**
 * Several processes starting at once in a fresh HERMES_HOME (a gateway and a cron run, two
 * terminals) all create the same folders: none of them may fail because another won the race.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const homeModule = join(import.meta.dirname, "..", "..", "dist", "core", "home.js");
const root = mkdtempSync(join(tmpdir(), "hermes-home-race-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Starts `count` processes that wait for the same instant, then create `home`. */
function createTogether(
  home: string,
  count: number,
): Promise<Array<{ code: number | null; stderr: string }>> {
  const startAt = Date.now() + 400;
  const script = `
    const { ensureHermesHome } = await import(${JSON.stringify(homeModule)});
    while (Date.now() < ${startAt}) {}
    ensureHermesHome(${JSON.stringify(home)});
  `;
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<{ code: number | null; stderr: string }>((done) => {
          const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
            stdio: ["ignore", "ignore", "pipe"],
          });
          let stderr = "";
          child.stderr.on("data", (chunk) => {
            stderr += chunk;
          });
          child.on("close", (code) => done({ code, stderr }));
        }),
    ),
  );
}

describe("ensureHermesHome across processes", () => {
  it("creates a fresh home from eight processes at once, every time, without an error", async () => {
    for (let round = 0; round < 6; round++) {
      const home = join(root, `round-${round}`, "home");
      const results = await createTogether(home, 8);
      expect(results.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
      for (const dir of ["logs", "memories", "skills", "sessions", "cache"]) {
        expect(statSync(join(home, dir)).isDirectory()).toBe(true);
      }
    }
  });
});
