import { describe, expect, it } from "vitest";
import { readUsage, recordSkillUse, usagePath } from "../../src/skills/usage.js";
import { holdLockInAnotherProcess } from "../support/lock-holder.js";
import { tempDir } from "../support/temp.js";

describe("skill usage records while another process holds the lock", () => {
  it("return at once and are written once the lock is free", async () => {
    const home = tempDir("hermes-usage-");
    recordSkillUse(home, "deploy", "view");
    const holder = await holdLockInAnotherProcess(`${usagePath(home)}.lock`);
    // Returns at once with nothing written: waiting would hold the event loop.
    recordSkillUse(home, "deploy", "invoke");
    expect(readUsage(home).deploy?.uses).toBeUndefined();
    await holder.release();
    for (let i = 0; i < 500 && readUsage(home).deploy?.uses === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(readUsage(home).deploy).toMatchObject({ views: 1, uses: 1 });
  });
});
