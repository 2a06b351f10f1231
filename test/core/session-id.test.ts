import { describe, expect, it } from "vitest";
import { fingerprint } from "../../src/core/fingerprint.js";
import { newSessionId } from "../../src/core/session-id.js";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newSessionId", () => {
  it("is a version 4 UUID; 100 000 of them are all different, and so are their 8-character prefixes nearly always", () => {
    const ids = Array.from({ length: 100_000 }, () => newSessionId());
    for (const id of ids.slice(0, 1000)) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(100_000);
    // Listings show 8 characters: among 1 000 sessions, a shared prefix is a rare accident.
    const prefixes = new Set(ids.slice(0, 1000).map((id) => id.slice(0, 8)));
    expect(prefixes.size).toBeGreaterThanOrEqual(999);
  });
});

describe("fingerprint", () => {
  it("is 16 hex digits, the same for the same text and different for a one-character change", () => {
    const text = "skills/a/SKILL.md\t120\t1700000000000\nskills/b/SKILL.md\t88\t1700000000001";
    expect(fingerprint(text)).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprint(text)).toBe(fingerprint(text.slice(0)));
    expect(fingerprint(text.replace("120", "121"))).not.toBe(fingerprint(text));
    expect(fingerprint("")).not.toBe(fingerprint("\n"));
  });
});
