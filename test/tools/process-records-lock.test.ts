import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runTogether } from "../support/child.js";
import { tempDir } from "../support/temp.js";

/** processes.json is shared by every Hermes process of a home: updates go through its lock file. */

interface StoredRecord {
  id: string;
  status: string;
  exit_code: number | null;
}

describe("processes.json across processes", () => {
  it("two processes starting and finishing background processes at once lose no record", async () => {
    const home = tempDir("hermes-procs-");
    const [a, b] = await runTogether([
      ["process-starter.mjs", [home, "12"]],
      ["process-starter.mjs", [home, "12"]],
    ]);
    expect(a!.code, a!.stderr).toBe(0);
    expect(b!.code, b!.stderr).toBe(0);
    const ids = (out: string): string[] => JSON.parse(out.replace("ready\n", "")) as string[];
    const started = [...ids(a!.stdout), ...ids(b!.stdout)];
    expect(new Set(started).size).toBe(24);

    const file = JSON.parse(readFileSync(join(home, "processes.json"), "utf8")) as {
      processes: StoredRecord[];
    };
    // Every process is there, and with the update its own process wrote last (its exit).
    expect(file.processes.map((r) => r.id).sort()).toEqual([...started].sort());
    for (const r of file.processes) expect(r).toMatchObject({ status: "exited", exit_code: 3 });
    // No lock file or temp file is left behind.
    expect(readdirSync(home).filter((f) => f.startsWith("processes.json"))).toEqual(["processes.json"]);
  }, 60_000);
});
