import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { OutputCollector } from "../../src/tools/environments/output-collector.js";
import { buildBaseEnv, isCredentialName } from "../../src/tools/environments/shell-state.js";
import { cleanTerminalOutput, spillToFile, stripAnsi, truncateOutput } from "../../src/tools/output.js";

const limits = { maxBytes: 50_000, maxLines: 2_000, maxLineLength: 2_000 };

describe("truncateOutput", () => {
  it("leaves small output alone", () => {
    expect(truncateOutput("a\nb\n", limits)).toEqual({
      text: "a\nb\n",
      truncated: false,
      omittedLines: 0,
      omittedBytes: 0,
    });
  });

  it("keeps head and tail within the line limit with one marker", () => {
    const text = Array.from({ length: 100 }, (_, i) => `l${i + 1}`).join("\n");
    const r = truncateOutput(text, { ...limits, maxLines: 10 });
    const out = r.text.split("\n");
    expect(r.truncated).toBe(true);
    expect(out.slice(0, 4)).toEqual(["l1", "l2", "l3", "l4"]);
    expect(out[4]).toBe(`[... 90 lines / ${r.omittedBytes} bytes omitted ...]`);
    expect(out.slice(5)).toEqual(["l95", "l96", "l97", "l98", "l99", "l100"]);
  });

  it("keeps within the byte limit", () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line number ${i}`).join("\n");
    const r = truncateOutput(text, { ...limits, maxBytes: 1000 });
    expect(Buffer.byteLength(r.text)).toBeLessThan(1100);
    expect(r.text).toMatch(/\[\.\.\. \d+ lines \/ \d+ bytes omitted \.\.\.\]/);
    expect(r.text.endsWith("line number 4999")).toBe(true);
  });

  it("cuts over-long lines, and slices a single giant line without splitting characters", () => {
    const r = truncateOutput(`${"y".repeat(3000)}\nok`, limits);
    expect(r.text).toBe(`${"y".repeat(2000)} [... 1000 more chars cut]\nok`);
    const giant = truncateOutput("é".repeat(100_000), {
      ...limits,
      maxLineLength: 1_000_000,
      maxBytes: 1000,
    });
    expect(giant.truncated).toBe(true);
    expect(giant.text).not.toContain("\uFFFD");
  });
});

describe("ANSI and terminal clean-up", () => {
  it("strips colour, cursor and OSC sequences", () => {
    expect(stripAnsi("\x1b[1;31mred\x1b[0m \x1b]0;title\x07x \x1b[2K\x1b[1Gy")).toBe("red x y");
    expect(stripAnsi("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\")).toBe("link");
  });

  it("reduces carriage-return progress to its final state", () => {
    expect(cleanTerminalOutput("a\r\nprogress 10%\rprogress 100%\ndone\x07\n")).toBe(
      "a\nprogress 100%\ndone\n",
    );
  });
});

describe("spillToFile", () => {
  it("writes under HERMES_HOME/cache/tool-output", async () => {
    const { mkdtemp, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const home = await mkdtemp(join(tmpdir(), "hermes-spill-"));
    const path = await spillToFile(home, "full text", "my label/x");
    expect(path.startsWith(join(home, "cache", "tool-output"))).toBe(true);
    expect(path).toMatch(/-my_label_x-[0-9a-f]{6}\.txt$/);
    expect(await readFile(path, "utf8")).toBe("full text");
    await rm(home, { recursive: true, force: true });
  });
});

describe("OutputCollector", () => {
  it("keeps head and a rolling tail, counting dropped bytes", () => {
    const c = new OutputCollector(10);
    for (let i = 0; i < 10; i++) c.push(Buffer.from(`${i}${i}${i}${i}\n`));
    expect(c.dropped).toBe(30);
    expect(c.text()).toBe(
      "0000\n1111\n\n[... 30 bytes of output dropped (over the capture limit) ...]\n8888\n9999\n",
    );
  });
});

describe("environment sanitising", () => {
  it("recognises credential-shaped names", () => {
    for (const n of [
      "OPENAI_API_KEY",
      "GITHUB_TOKEN",
      "DB_PASSWORD",
      "AWS_SECRET_ACCESS_KEY",
      "ANTHROPIC_BASE_URL",
    ]) {
      expect(isCredentialName(n)).toBe(true);
    }
    for (const n of ["PATH", "HOME", "TOKENIZERS_PARALLELISM", "SSH_AUTH_SOCK"])
      expect(isCredentialName(n)).toBe(false);
  });

  it("drops secrets unless passed through and adds non-interactive defaults", () => {
    const env = buildBaseEnv({ PATH: "/bin", A_TOKEN: "x", B_TOKEN: "y", PAGER: "less" }, ["B_TOKEN"]);
    expect(env).toMatchObject({ PATH: "/bin", B_TOKEN: "y", PAGER: "cat", TERM: "dumb", NO_COLOR: "1" });
    expect(env).not.toHaveProperty("A_TOKEN");
  });
});
