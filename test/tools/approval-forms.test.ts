import { beforeAll, describe, expect, it } from "vitest";
import { type DetectOptions, detectCommand } from "../../src/tools/approval/detect.js";
import { loadShellGrammar } from "../../src/tools/approval/grammar.js";
import {
  type FormCase,
  HARMLESS_FORMS,
  IFS_FORMS,
  ROOT_FORMS,
  SUDO_FORMS,
} from "../fixtures/approval-forms.js";

const ME: DetectOptions = { cwd: "/home/me/proj", home: "/home/me", hermesHome: "/home/me/.hermes" };

/** Each case caught by its rule, hardline exactly when it says so; every failure listed at once. */
function misses(cases: readonly FormCase[], opts: DetectOptions = ME): string[] {
  const out: string[] = [];
  for (const c of cases) {
    const d = detectCommand(c.command, opts);
    const found = [...d.hardline, ...d.dangerous].map((m) => m.key);
    if (!found.includes(c.key)) out.push(`${c.command}: want ${c.key}, got ${found.join(",") || "nothing"}`);
    if (Boolean(c.hardline) !== d.hardline.length > 0)
      out.push(`${c.command}: hardline should be ${!!c.hardline}`);
  }
  return out;
}

describe("spellings that bash and sudo read as the plain command", () => {
  beforeAll(async () => {
    expect(await loadShellGrammar()).toBe(true);
  });

  it("sees through $IFS between words, also with an empty $9 and inside substitutions", () => {
    expect(misses(IFS_FORMS)).toEqual([]);
  });

  it("reads /. and /./. as /", () => {
    expect(misses(ROOT_FORMS)).toEqual([]);
    expect(misses(ROOT_FORMS, {})).toEqual([]);
  });

  it("reads sudo's options as getopt does: any unambiguous prefix, clusters and their values", () => {
    expect(misses(SUDO_FORMS)).toEqual([]);
  });

  it("leaves look-alikes alone", () => {
    const flagged = HARMLESS_FORMS.map((c) => {
      const d = detectCommand(c, ME);
      return [c, [...d.hardline, ...d.dangerous, ...d.warnings].map((m) => m.key)] as const;
    }).filter(([, k]) => k.length > 0);
    expect(flagged).toEqual([]);
  });

  it("keeps $1 unknown inside a nested script that gets arguments", () => {
    const d = detectCommand("find /tmp -exec sh -c 'rm -rf \"$1\"' _ {} \\;", ME);
    expect([...d.hardline, ...d.dangerous].length).toBeGreaterThan(0);
  });
});
