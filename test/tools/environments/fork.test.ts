import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BACKENDS, providerPerTest } from "./backends.js";

/**
 * Subagents get environments forked from their parent's: same machine (or container), starting in
 * the parent's cwd with its variables, and from then on apart, so three children running at once
 * cannot undo each other's `cd`/`export` or the parent's.
 */

const opts = { timeoutMs: 20_000 };

/** The private state dir a command's sourced file lives in. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: bash array expansion
const STATE_DIR = 'dirname "${BASH_SOURCE[0]:-$0}"';

describe.each(BACKENDS)("forked environments: %s", (name, makeProvider) => {
  const t = providerPerTest(makeProvider);

  it("start from the parent's cwd and variables, then keep their own", async () => {
    const work = join(t.root, "work");
    await mkdir(work);
    const parent = t.provider.get("p");
    await parent.run(`cd ${work} && export FROM_PARENT=yes`, opts);
    const kids = ["a", "b", "c"].map((k) => t.provider.fork("p", `p/${k}`));
    expect(t.provider.get("p/a")).toBe(kids[0]);
    expect(t.provider.fork("p", "p/a")).toBe(kids[0]);
    await Promise.all(["a", "b", "c"].map((k) => mkdir(join(t.root, k))));
    const first = await Promise.all(
      kids.map((kid, i) => {
        const k = ["a", "b", "c"][i]!;
        return kid.run(`echo "$FROM_PARENT $PWD"; cd ${join(t.root, k)} && export ONLY=${k}`, opts);
      }),
    );
    expect(first.map((r) => r.output)).toEqual(Array(3).fill(`yes ${work}\n`));
    for (const [i, k] of ["a", "b", "c"].entries()) {
      expect((await kids[i]!.run('echo "$ONLY $PWD"', opts)).output).toBe(`${k} ${join(t.root, k)}\n`);
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    expect((await parent.run('echo "[${ONLY:-}] $PWD"', opts)).output).toBe(`[] ${work}\n`);
    expect(parent.getCwd()).toBe(work);
  });

  it("release a child's state without touching the parent's", async () => {
    const parent = t.provider.get("p");
    await parent.run("export KEEP=1", opts);
    const kid = t.provider.fork("p", "p/k");
    const kidState = (await kid.run(STATE_DIR, opts)).output.trim();
    const parentState = (await parent.run(STATE_DIR, opts)).output.trim();
    expect(kidState).not.toBe(parentState);
    expect(existsSync(kidState)).toBe(true);
    await t.provider.release("p/k");
    expect(existsSync(kidState)).toBe(false);
    expect((await parent.run('echo "$KEEP"', opts)).output).toBe("1\n");
    if (name.startsWith("docker")) {
      // One container for the family: the child ran in the parent's and left it running.
      const runs = (await readFile(join(t.root, "run-args"), "utf8")).trim().split("\n");
      expect(runs).toHaveLength(1);
    }
  });
});
