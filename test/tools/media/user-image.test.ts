import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSlash, type SlashContext } from "../../../src/cli/repl/slash.js";
import { imageTurn, splitSource } from "../../../src/tools/builtin/media/user-image.js";
import { tempDir } from "../../support/temp.js";
import { makePng } from "./images.js";

describe("an image named in the chat", () => {
  const dir = tempDir("hermes-user-image-");
  writeFileSync(join(dir, "my chart.png"), makePng(2, 2));

  it("splits a quoted or backslash-escaped path from the question", () => {
    expect(splitSource('"my chart.png" what is it?')).toEqual(["my chart.png", "what is it?"]);
    expect(splitSource("my\\ chart.png what is it?")).toEqual(["my chart.png", "what is it?"]);
    expect(splitSource("https://example.com/a.png")).toEqual(["https://example.com/a.png", ""]);
  });

  it("becomes a turn that names the absolute path for vision_analyze; missing files are refused", () => {
    const turn = imageTurn("'my chart.png' Which colour?", dir);
    expect(turn).toEqual({
      ok: true,
      source: join(dir, "my chart.png"),
      text: `Which colour?\n\n[Image: ${join(dir, "my chart.png")}. Look at it with vision_analyze before answering.]`,
    });
    expect(imageTurn("missing.png", dir)).toEqual({ ok: false, error: "No such file: missing.png" });
    expect(imageTurn("", dir)).toEqual({ ok: false, error: "Usage: /image <path or URL> [question]" });
  });

  it("/image sends that turn", () => {
    const sent: string[] = [];
    const printed: string[] = [];
    const ctx = {
      print: (t: string) => void printed.push(t),
      resend: (t: string) => void sent.push(t),
    } as unknown as SlashContext;
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(runSlash("/image my\\ chart.png", ctx)).toBe(true);
      runSlash("/image nothing-here.png", ctx);
    } finally {
      process.chdir(cwd);
    }
    expect(sent).toEqual([
      `What is in this image?\n\n[Image: ${join(dir, "my chart.png")}. Look at it with vision_analyze before answering.]`,
    ]);
    expect(printed).toEqual(["No such file: nothing-here.png"]);
  });

  it("a prompt starting with the path of a dropped image file sends that turn; other unknown commands stay unknown", () => {
    const sent: string[] = [];
    const printed: string[] = [];
    const ctx = {
      print: (t: string) => void printed.push(t),
      resend: (t: string) => void sent.push(t),
    } as unknown as SlashContext;
    const dropped = join(dir, "my chart.png").replace(/ /g, "\\ ");
    expect(runSlash(`${dropped} is this a bar chart?`, ctx)).toBe(true);
    runSlash(`${join(dir, "missing.png")} what is it?`, ctx);
    runSlash("/nosuchcommand", ctx);
    expect(sent).toEqual([
      `is this a bar chart?\n\n[Image: ${join(dir, "my chart.png")}. Look at it with vision_analyze before answering.]`,
    ]);
    expect(printed).toEqual([
      `Unknown command /${join(dir, "missing.png").slice(1)}. Type /help for the list.`,
      "Unknown command /nosuchcommand. Type /help for the list.",
    ]);
  });
});
