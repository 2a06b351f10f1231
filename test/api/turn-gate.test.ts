import { describe, expect, it } from "vitest";
import { TurnGate } from "../../src/api/turn-gate.js";

describe("TurnGate", () => {
  it("lets callers through in arrival order, one per event-loop turn", async () => {
    const gate = new TurnGate();
    const seen: string[] = [];
    const entered = ["a", "b", "c"].map((name) => gate.enter().then(() => seen.push(name)));
    // Work scheduled for the next turns gets in between two callers: each caller had a turn of its own.
    let turns = 0;
    const tick = (): void => {
      seen.push(`turn${++turns}`);
      if (turns < 3) setImmediate(tick);
    };
    setImmediate(tick);
    await Promise.all(entered);
    expect(seen.filter((s) => !s.startsWith("turn"))).toEqual(["a", "b", "c"]);
    const at = (name: string) => seen.indexOf(name);
    expect(at("a")).toBeLessThan(at("turn2"));
    expect(at("b")).toBeGreaterThan(at("turn1"));
    expect(at("c")).toBeGreaterThan(at("turn2"));
  });

  it("opens again for a caller that comes after the queue drained", async () => {
    const gate = new TurnGate();
    await gate.enter();
    const stuck = new Promise<string>((resolve) => setTimeout(() => resolve("stuck"), 200));
    expect(await Promise.race([gate.enter().then(() => "entered"), stuck])).toBe("entered");
  });
});
