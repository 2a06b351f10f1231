import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  createApprovalPrompt,
  formatApprovalRequest,
  parseChoice,
} from "../../src/cli/repl/approval-prompt.js";
import { detectCommand } from "../../src/tools/approval/detect.js";
import type { ApprovalRequest } from "../../src/tools/approval/types.js";

function request(command: string, signal = new AbortController().signal): ApprovalRequest {
  return { command, reasons: detectCommand(command).dangerous, timeoutMs: 60_000, signal };
}

function streams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = "";
  output.on("data", (d: Buffer) => {
    written += d.toString();
  });
  const waitFor = async (text: string): Promise<void> => {
    while (!written.includes(text)) await new Promise((r) => setTimeout(r, 5));
  };
  return { input, output, text: () => written, waitFor };
}

describe("approval prompt", () => {
  it("parses every spelling of the four answers", () => {
    expect(["o", "once", "Y", "yes"].map(parseChoice)).toEqual(["once", "once", "once", "once"]);
    expect(["s", "SESSION"].map(parseChoice)).toEqual(["session", "session"]);
    expect(["a", "always"].map(parseChoice)).toEqual(["always", "always"]);
    expect(["d", "deny", "n", "no"].map(parseChoice)).toEqual(["deny", "deny", "deny", "deny"]);
    expect(parseChoice("maybe")).toBeUndefined();
  });

  it("shows the command and every reason", () => {
    const text = formatApprovalRequest({
      ...request("sudo systemctl stop nginx && rm -rf src"),
      judgeNote: "unsure",
    });
    expect(text).toContain("sudo systemctl stop nginx && rm -rf src");
    expect(text).toContain("stopping, disabling or masking a system service");
    expect(text).toContain("recursive delete");
    expect(text).toContain("approval model: unsure");
  });

  it("asks through the readline interface that owns the input, re-asking on a bad answer", async () => {
    const s = streams();
    const rl = createInterface({ input: s.input, output: s.output, terminal: false });
    const lines: string[] = [];
    rl.on("line", (l) => lines.push(l));
    let opened = 0;
    let closed = 0;
    const approve = createApprovalPrompt({
      output: s.output,
      rl: () => rl,
      onOpen: () => opened++,
      onClose: () => closed++,
      color: false,
    });
    const answer = approve(request("rm -rf src"));
    await s.waitFor("[o]nce  [s]ession  [a]lways  [d]eny");
    s.input.write("what?\n");
    await s.waitFor("Please answer");
    s.input.write("s\n");
    expect(await answer).toBe("session");
    expect(s.text()).toContain("rm -rf src");
    expect(s.text()).toContain("(deny in 60 s)");
    expect(opened).toBe(1);
    expect(closed).toBe(1);
    // The answers went to the prompt, not to the chat's line handler; later lines reach it again.
    s.input.write("next prompt\n");
    await new Promise((r) => setTimeout(r, 20));
    expect(lines).toEqual(["next prompt"]);
    rl.close();
  });

  it("opens a temporary interface when there is none, and closes it", async () => {
    const s = streams();
    const approve = createApprovalPrompt({ output: s.output, input: s.input, color: false });
    const answer = approve(request("crontab -r"));
    await s.waitFor("[d]eny");
    s.input.write("always\n");
    expect(await answer).toBe("always");
  });

  it("denies on timeout or interrupt, and when the input ends", async () => {
    const s = streams();
    const rl = createInterface({ input: s.input, output: s.output, terminal: false });
    const controller = new AbortController();
    const approve = createApprovalPrompt({ output: s.output, rl: () => rl, color: false });
    const answer = approve(request("crontab -r", controller.signal));
    await s.waitFor("[d]eny");
    controller.abort();
    expect(await answer).toBe("deny");
    const ended = approve(request("crontab -r"));
    await new Promise((r) => setTimeout(r, 10));
    s.input.end();
    expect(await ended).toBe("deny");
  });

  it("denies at once without an input to read", async () => {
    const s = streams();
    const approve = createApprovalPrompt({ output: s.output });
    expect(await approve(request("crontab -r"))).toBe("deny");
  });
});
