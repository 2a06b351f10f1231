import { describe, expect, it } from "vitest";
import { DANGEROUS_PATTERNS, detectCommand } from "../../src/tools/approval/detect.js";
import { HARDLINE_PATTERNS } from "../../src/tools/approval/hardline.js";
import { DANGEROUS, EVERYDAY, WARN } from "../fixtures/approval-corpus.js";

describe("approval corpus", () => {
  it("is big enough to mean something", () => {
    expect(DANGEROUS.length).toBeGreaterThanOrEqual(80);
    expect(EVERYDAY.length).toBeGreaterThanOrEqual(80);
    expect(DANGEROUS_PATTERNS.length).toBeGreaterThanOrEqual(70);
    expect(HARDLINE_PATTERNS.length).toBeGreaterThanOrEqual(10);
  });

  it("has zero false negatives: every dangerous command is caught by a pattern of its class", () => {
    const misses: string[] = [];
    for (const c of DANGEROUS) {
      const d = detectCommand(c.command);
      const matches = [...d.hardline, ...d.dangerous];
      if (!matches.some((m) => m.class === c.class))
        misses.push(
          `${c.command} (want ${c.class}, got ${matches.map((m) => m.key).join(",") || "nothing"})`,
        );
      if (c.hardline && d.hardline.length === 0) misses.push(`${c.command} (want hardline)`);
      if (!c.hardline && d.hardline.length > 0) misses.push(`${c.command} (unexpected hardline)`);
    }
    expect(misses).toEqual([]);
  });

  it("has zero false positives: everyday commands pass without approval or warning", () => {
    const flagged: string[] = [];
    for (const command of EVERYDAY) {
      const d = detectCommand(command);
      const matches = [...d.hardline, ...d.dangerous, ...d.warnings];
      if (matches.length > 0) flagged.push(`${command} (${matches.map((m) => m.key).join(",")})`);
    }
    expect(flagged).toEqual([]);
  });

  it("puts routine destructive git commands in the warn class only", () => {
    for (const w of WARN) {
      const d = detectCommand(w.command);
      expect(d.hardline, w.command).toEqual([]);
      expect(d.dangerous, w.command).toEqual([]);
      expect(
        d.warnings.map((m) => m.key),
        w.command,
      ).toContain(w.key);
    }
  });

  it("gives every pattern a unique key and a description", () => {
    const all = [...HARDLINE_PATTERNS, ...DANGEROUS_PATTERNS];
    expect(new Set(all.map((p) => p.key)).size).toBe(all.length);
    for (const p of all) expect(p.description.length).toBeGreaterThan(10);
  });
});
