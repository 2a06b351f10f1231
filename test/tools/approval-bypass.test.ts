import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectCommand } from "../../src/tools/approval/detect.js";
import { grammarLoadMs, loadShellGrammar } from "../../src/tools/approval/grammar.js";
import { ApprovalSession } from "../../src/tools/approval/session.js";
import { OBFUSCATED } from "../fixtures/approval-bypass-obfuscated.js";
import { DANGEROUS, EVERYDAY, WARN } from "../fixtures/approval-corpus.js";
import { createHarness, type ToolHarness } from "./helpers.js";

/** Rule-based indirect cases, kept in their own fixture when it exists. */
async function indirectCases(): Promise<readonly { command: string; hardline?: boolean }[]> {
  const file = new URL("../fixtures/approval-bypass-indirect.ts", import.meta.url);
  if (!existsSync(file)) return [];
  const mod = (await import(file.href)) as { INDIRECT?: readonly { command: string; hardline?: boolean }[] };
  return mod.INDIRECT ?? [];
}

const risky = (command: string) => {
  const d = detectCommand(command);
  return { hardline: d.hardline, matches: [...d.hardline, ...d.dangerous] };
};

describe("the bash grammar is loaded lazily", () => {
  let h: ToolHarness;
  beforeAll(async () => {
    h = await createHarness();
    await mkdir(join(h.root, "src"));
    await writeFile(join(h.root, "src", "keep.txt"), "precious\n");
  });
  afterAll(async () => {
    await h.dispose();
  });

  it("is not loaded by importing the screening, and is loaded by the gate's first screened command", async () => {
    expect(grammarLoadMs()).toBeUndefined();
    // Without the grammar this reads as one unknown program `r{m,}`; bash runs `rm r -rf src`.
    expect(risky("r{m,} -rf src").matches).toEqual([]);
    const ctx = { ...h.ctx, approvals: new ApprovalSession({ mode: "manual", timeoutSeconds: 60 }) };
    const r = JSON.parse(await h.registry.dispatch("terminal", { command: "r{m,} -rf src" }, ctx)) as {
      error?: string;
    };
    expect(r.error).toMatch(/^Command needs approval and this run has no one to ask: recursive delete/);
    expect(existsSync(join(h.root, "src", "keep.txt"))).toBe(true);
    expect(grammarLoadMs()).toBeGreaterThan(0);
  });
});

describe("obfuscated and indirect commands", () => {
  beforeAll(async () => {
    expect(await loadShellGrammar()).toBe(true);
  });

  it("covers every technique with enough cases", () => {
    expect(OBFUSCATED.length).toBeGreaterThanOrEqual(70);
    expect(new Set(OBFUSCATED.map((c) => c.technique)).size).toBeGreaterThanOrEqual(10);
  });

  it("lets none of the obfuscated commands run unasked", () => {
    const allowed = OBFUSCATED.filter((c) => risky(c.command).matches.length === 0).map((c) => c.command);
    expect(allowed).toEqual([]);
  });

  it("keeps the decoded never-run commands blocked outright", () => {
    const notBlocked = OBFUSCATED.filter((c) => c.hardline && risky(c.command).hardline.length === 0).map(
      (c) =>
        `${c.command} (${
          risky(c.command)
            .matches.map((m) => m.key)
            .join(",") || "nothing"
        })`,
    );
    expect(notBlocked).toEqual([]);
  });

  it("lets none of the indirect commands run unasked", async () => {
    const cases = await indirectCases();
    const allowed = cases.filter((c) => risky(c.command).matches.length === 0).map((c) => c.command);
    const notBlocked = cases
      .filter((c) => c.hardline && risky(c.command).hardline.length === 0)
      .map((c) => c.command);
    expect(allowed).toEqual([]);
    expect(notBlocked).toEqual([]);
  });

  it("names what it could not follow", () => {
    const keys = (c: string) => risky(c).matches.map((m) => m.key);
    expect(keys("$(cat ~/.cmd) -rf /")).toContain("computed_command");
    expect(keys("rm $(cat flags.txt) /")).toContain("computed_argument");
    expect(keys('echo "$PAYLOAD" | sh')).toContain("computed_script_to_shell");
    expect(keys('eval "$(cat notes.txt | rev)"')).toContain("decoded_script_run");
    expect(risky("$(cat ~/.cmd) -rf /").matches[0]!.description).toMatch(
      /^command name computed at run time/,
    );
  });
});

describe("ordinary scripts with the grammar", () => {
  beforeAll(async () => {
    expect(await loadShellGrammar()).toBe(true);
  });

  it("leave everyday commands unflagged", () => {
    const flagged = EVERYDAY.filter((c) => {
      const d = detectCommand(c);
      return d.hardline.length + d.dangerous.length + d.warnings.length > 0;
    });
    expect(flagged).toEqual([]);
  });

  it("leave substitutions, variables, loops and harmless known scripts unflagged", () => {
    for (const c of [
      "touch build-$(date +%s).log",
      'for f in $(ls); do echo "$f"; done',
      "echo $HOME",
      'cd "$(git rev-parse --show-toplevel)"',
      'cd "$(dirname "$0")" && ls',
      'eval "$(ssh-agent -s)"',
      "$EDITOR notes.txt",
      '"$PYTHON" -m pytest -q',
      '"$(npm bin)/eslint" src',
      "kill $(lsof -t -i:3000)",
      "rm -f $(git ls-files --deleted)",
      "docker run --rm -v $(pwd):/app -w /app node:20 npm test",
      "mkdir -p src/{components,hooks,utils}",
      "ls *.{ts,js}",
      "echo 'ls -la' | sh",
      "cat <<EOF > notes.md\n# $(date)\nEOF",
      'while read -r l; do echo "$l"; done < files.txt',
      'f() { echo "$1"; }; f hello',
      'export PATH="$HOME/bin:$PATH"',
      "source .venv/bin/activate && python3 -m pytest",
      "bash scripts/build.sh",
      "sh -c 'npm test'",
      "python3 - <<EOF\nprint(sum(range(10)))\nEOF",
      "IFS=, read -r a b <<< 'x,y'; echo $a",
      "git log --format=%H | head -1",
    ]) {
      const d = detectCommand(c);
      expect(
        [...d.hardline, ...d.dangerous, ...d.warnings].map((m) => m.key),
        c,
      ).toEqual([]);
    }
  });

  it("still catch the dangerous corpus, each by a pattern of its class", () => {
    const misses = DANGEROUS.filter((c) => {
      const d = detectCommand(c.command);
      const caught = [...d.hardline, ...d.dangerous].some((m) => m.class === c.class);
      return !caught || (c.hardline && d.hardline.length === 0);
    }).map((c) => c.command);
    expect(misses).toEqual([]);
  });

  it("keep routine destructive git commands in the warn class", () => {
    for (const w of WARN)
      expect(
        detectCommand(w.command).warnings.map((m) => m.key),
        w.command,
      ).toContain(w.key);
  });
});
