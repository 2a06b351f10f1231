import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { skipBecause } from "../support/skip.js";

/** bin/hermes.js started by a Node older than 24 (a distribution's own node, typically). */

const BIN = join(import.meta.dirname, "..", "..", "bin", "hermes.js");

function versionOf(node: string): string | undefined {
  const r = spawnSync(node, ["-p", "process.versions.node"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

const candidates = [
  "/usr/bin/node",
  "/usr/local/bin/node",
  ...(process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "node")),
];
const old = candidates
  .filter((p) => existsSync(p))
  .map((path) => ({ path, version: versionOf(path) }))
  .find((n) => n.version !== undefined && Number(n.version.split(".")[0]) < 24);

describe.skipIf(skipBecause("bin/hermes.js on old Node", !old && "no Node older than 24 on this machine"))(
  "bin/hermes.js on a Node older than 24",
  () => {
    it("says in one line which Node it needs and how to get it, and exits 1", () => {
      const line = `hermes needs Node.js 24 or newer (this is v${old?.version}): run 'bash scripts/install.sh' or put Node 24 first on PATH\n`;
      for (const args of [["-z", "Say hello"], ["--version"], []]) {
        const r = spawnSync(old?.path ?? "", [BIN, ...args], { encoding: "utf8", input: "" });
        expect(r.stderr).toBe(line);
        expect(r.stdout).toBe("");
        expect(r.status).toBe(1);
      }
    });
  },
);
