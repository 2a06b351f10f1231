import { describe, expect, it } from "vitest";
import { heapBudgetFlags } from "../../src/core/heap.js";

describe("heap budget of the servers", () => {
  it("caps the old generation and shrinks the young one", () => {
    expect(heapBudgetFlags(1024, [], {})).toEqual(["--max-old-space-size=1024", "--max-semi-space-size=8"]);
  });

  it("does nothing when off, when already applied, or when the user chose a heap size", () => {
    expect(heapBudgetFlags(0, [], {})).toEqual([]);
    expect(heapBudgetFlags(1024, [], { HERMES_HEAP_BUDGET_APPLIED: "1" })).toEqual([]);
    expect(heapBudgetFlags(1024, ["--max-old-space-size=300"], {})).toEqual([]);
    expect(heapBudgetFlags(1024, [], { NODE_OPTIONS: "--trace-gc --max_old_space_size=300" })).toEqual([]);
  });

  it("keeps a young-generation size the user chose", () => {
    expect(heapBudgetFlags(512, [], { NODE_OPTIONS: "--max-semi-space-size=32" })).toEqual([
      "--max-old-space-size=512",
    ]);
  });
});
