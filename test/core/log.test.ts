import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger, formatRecord } from "../../src/core/log.js";
import { tempDir } from "../support/temp.js";

const lines = (home: string) =>
  readFileSync(join(home, "logs", "agent.log"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("the agent log", () => {
  it("writes pino's line format: level number, ISO time, pid, the fields, msg last", async () => {
    const home = tempDir("hermes-log-");
    const logger = createLogger(home);
    logger.info("session start", { session: "s1", model: "m" });
    logger.warn("status retry", { session: "s1", message: "429" });
    logger.error("boom");
    await logger.flush();
    const raw = readFileSync(join(home, "logs", "agent.log"), "utf8").split("\n")[0]!;
    expect(raw).toMatch(
      /^\{"level":30,"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","pid":\d+,"session":"s1","model":"m","msg":"session start"\}$/,
    );
    expect(lines(home).map((l) => [l.level, l.msg])).toEqual([
      [30, "session start"],
      [40, "status retry"],
      [50, "boom"],
    ]);
    expect(lines(home)[0]!.pid).toBe(process.pid);
  });

  it("leaves out records below its level and fields that are undefined", async () => {
    const home = tempDir("hermes-log-");
    const logger = createLogger(home);
    logger.debug("model call", { n: 1 });
    logger.info("run done", { status: "completed", error: undefined });
    await logger.flush();
    expect(lines(home)).toHaveLength(1);
    expect(lines(home)[0]).not.toHaveProperty("error");
    const verbose = createLogger(home, "debug");
    verbose.debug("model call", { n: 2 });
    await verbose.flush();
    expect(lines(home).map((l) => [l.level, l.msg, l.n])).toEqual([
      [30, "run done", undefined],
      [20, "model call", 2],
    ]);
  });

  it("appends after a flush, to the same file as other processes' records", async () => {
    const home = tempDir("hermes-log-");
    const logger = createLogger(home);
    logger.info("one");
    await logger.flush();
    writeFileSync(join(home, "logs", "agent.log"), '{"level":30,"msg":"other"}\n', { flag: "a" });
    logger.info("two");
    await logger.flush();
    expect(lines(home).map((l) => l.msg)).toEqual(["one", "other", "two"]);
  });

  it("writes fields JSON cannot hold as text instead of failing", () => {
    const cyclic: Record<string, unknown> = { name: "a" };
    cyclic.self = cyclic;
    const line = JSON.parse(formatRecord("info", "odd", { cyclic, big: 12n })) as Record<string, unknown>;
    expect(line).toMatchObject({ msg: "odd", big: "12", cyclic: { name: "a", self: "[Circular]" } });
  });

  it("never throws when the home cannot hold logs", async () => {
    const home = tempDir("hermes-log-");
    writeFileSync(join(home, "logs"), "a file where the folder should be");
    const logger = createLogger(home);
    expect(() => logger.error("lost", { why: "no folder" })).not.toThrow();
    await expect(logger.flush()).resolves.toBeUndefined();
  });
});
