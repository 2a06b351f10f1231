import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/core/config.js";
import { checkCommandApproval, workerContext } from "../../src/tools/approval/gate.js";
import {
  ApprovalPolicy,
  ApprovalSession,
  type ApprovalSessionOptions,
} from "../../src/tools/approval/session.js";
import type { ApprovalChoice, ApprovalRequest, ApproveFn } from "../../src/tools/approval/types.js";
import type { ToolContext } from "../../src/tools/context.js";
import type { ExecutionEnvironment } from "../../src/tools/environments/types.js";
import { createHarness, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
beforeEach(async () => {
  h = await createHarness();
  await mkdir(join(h.root, "src"));
  await writeFile(join(h.root, "src", "keep.txt"), "precious\n");
});
afterEach(async () => {
  await h.dispose();
});

const session = (opts: Partial<ApprovalSessionOptions> = {}): ApprovalSession =>
  new ApprovalSession({ mode: "manual", timeoutSeconds: 60, ...opts });

/** An approve callback answering from a script and recording what it was asked. */
function scripted(...answers: ApprovalChoice[]): ApproveFn & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  const fn = async (req: ApprovalRequest): Promise<ApprovalChoice> => {
    asked.push(req);
    return answers.shift() ?? "deny";
  };
  return Object.assign(fn, { asked });
}

const ctxWith = (extra: Partial<ToolContext>): ToolContext => ({ ...h.ctx, ...extra });
const runIn = async (ctx: ToolContext, command: string): Promise<Record<string, unknown>> =>
  JSON.parse(await h.registry.dispatch("terminal", { command }, ctx)) as Record<string, unknown>;
const srcExists = (): boolean => existsSync(join(h.root, "src", "keep.txt"));

describe("approval gate through the terminal tool", () => {
  it("runs everyday commands without asking and notes file changes", async () => {
    const approve = scripted();
    const ctx = ctxWith({ approvals: session(), approve, interactive: true });
    const r = await runIn(ctx, "echo hi > out.txt && rm -rf node_modules");
    expect(r.exit_code).toBe(0);
    expect(r.warning).toBe("this command modifies files: > out.txt, rm");
    expect((await runIn(ctx, "ls")).warning).toBeUndefined();
    expect(approve.asked).toHaveLength(0);
  });

  it("warns about routine destructive git commands without asking", async () => {
    const approve = scripted();
    const ctx = ctxWith({ approvals: session(), approve, interactive: true });
    const r = await runIn(ctx, "git init -q . && git reset --hard");
    expect(String(r.warning)).toContain("git reset --hard discards uncommitted changes");
    expect(approve.asked).toHaveLength(0);
  });

  it("denies in a non-interactive run with a result the model can act on", async () => {
    const ctx = ctxWith({ approvals: session() });
    const r = await runIn(ctx, "rm -rf src");
    expect(r.error).toMatch(/^Command needs approval and this run has no one to ask: recursive delete/);
    expect(String(r.error)).toContain("rerun with --yolo");
    expect(srcExists()).toBe(true);
  });

  it("asks interactively: once runs it, and the next one asks again", async () => {
    const approve = scripted("once", "deny");
    const ctx = ctxWith({ approvals: session(), approve, interactive: true });
    await mkdir(join(h.root, "other"));
    const r = await runIn(ctx, "rm -rf other");
    expect(r.exit_code).toBe(0);
    expect(existsSync(join(h.root, "other"))).toBe(false);
    expect(approve.asked[0]!.command).toBe("rm -rf other");
    expect(approve.asked[0]!.reasons.map((m) => m.key)).toContain("recursive_delete");
    const denied = await runIn(ctx, "rm -rf src");
    expect(denied.error).toMatch(/^The user denied this command \(recursive delete/);
    expect(srcExists()).toBe(true);
    expect(approve.asked).toHaveLength(2);
  });

  it("remembers a session approval per pattern and per session", async () => {
    const approve = scripted("session", "deny");
    const approvals = session();
    const ctx = ctxWith({ approvals, approve, interactive: true });
    await mkdir(join(h.root, "a"));
    await mkdir(join(h.root, "b"));
    expect((await runIn(ctx, "rm -rf a")).exit_code).toBe(0);
    expect((await runIn(ctx, "rm -r b")).exit_code).toBe(0);
    expect(approve.asked).toHaveLength(1);
    // Another pattern still asks; another session starts from scratch.
    expect((await runIn(ctx, "systemctl stop nothing-here")).error).toMatch(/user denied/);
    const other = ctxWith({ approvals, approve: scripted("deny"), interactive: true, sessionId: "s2" });
    expect((await runIn(other, "rm -rf src")).error).toMatch(/user denied/);
  });

  it("always: saves the pattern to command_allowlist, keeping comments, and honours it", async () => {
    const configPath = join(h.home, "config.yaml");
    await writeFile(configPath, "# my settings\napprovals:\n  mode: manual # ask me\n");
    const approvals = session({ configPath });
    const ctx = ctxWith({ approvals, approve: scripted("always"), interactive: true });
    await mkdir(join(h.root, "gone"));
    expect((await runIn(ctx, "rm -rf gone")).exit_code).toBe(0);
    const text = await readFile(configPath, "utf8");
    expect(text).toContain("# my settings");
    expect(text).toContain("mode: manual # ask me");
    expect(loadConfig(configPath).config.command_allowlist).toEqual(["recursive_delete"]);
    // A fresh session built from the file (what a new process does) needs no prompt.
    const fresh = session({ allowlist: loadConfig(configPath).config.command_allowlist });
    const r = await runIn(ctxWith({ approvals: fresh }), "rm -rf src");
    expect(r.exit_code).toBe(0);
    expect(srcExists()).toBe(false);
  });

  it("denies when the prompt is not answered in time", async () => {
    const never: ApproveFn = () => new Promise<ApprovalChoice>(() => {});
    const ctx = ctxWith({ approvals: session({ timeoutSeconds: 0.2 }), approve: never, interactive: true });
    const r = await runIn(ctx, "rm -rf src");
    expect(r.error).toMatch(/^No answer to the approval prompt within 0.2 s, so the command was not run/);
    expect(srcExists()).toBe(true);
  });

  it("denies when the user interrupts while the prompt waits", async () => {
    const controller = new AbortController();
    const approve: ApproveFn = (req) =>
      new Promise<ApprovalChoice>((resolve) => {
        req.signal.addEventListener("abort", () => resolve("deny"));
        setTimeout(() => controller.abort(), 10);
      });
    const ctx = ctxWith({ approvals: session(), approve, interactive: true, signal: controller.signal });
    const gate = await checkCommandApproval("rm -rf src", ctx);
    expect(gate.allowed).toBe(false);
    if (!gate.allowed) expect(gate.result).toContain("Interrupted by the user");
  });

  it("yolo and mode off run flagged commands without asking", async () => {
    const approve = scripted();
    const yolo = session({ yolo: true });
    await mkdir(join(h.root, "y"));
    expect(
      (await runIn(ctxWith({ approvals: yolo, approve, interactive: true }), "rm -rf y")).exit_code,
    ).toBe(0);
    const off = session({ mode: "off" });
    expect((await runIn(ctxWith({ approvals: off }), "rm -rf src")).exit_code).toBe(0);
    expect(approve.asked).toHaveLength(0);
    // yolo is live: switching it off mid-session asks again.
    yolo.yolo = false;
    await mkdir(join(h.root, "z"));
    expect((await runIn(ctxWith({ approvals: yolo }), "rm -rf z")).error).toMatch(/needs approval/);
  });

  it("never runs hardline commands on the local backend, not with yolo, mode off or the allowlist", async () => {
    for (const approvals of [
      session({ yolo: true }),
      session({ mode: "off" }),
      session({ allowlist: ["rm_home", "recursive_delete"] }),
    ]) {
      const approve = scripted("once");
      for (const command of ["rm -rf ~", "rm -rf /", "mkfs.ext4 /dev/sda1", ":(){ :|:& };:"]) {
        const gate = await checkCommandApproval(command, ctxWith({ approvals, approve, interactive: true }));
        expect(gate.allowed, command).toBe(false);
        if (!gate.allowed) expect(JSON.parse(gate.result).error).toMatch(/^Blocked: .*not even with --yolo/);
      }
      expect(approve.asked).toHaveLength(0);
    }
  });

  it("exempts non-local backends from hardline: ssh asks, containers run", async () => {
    const withBackend = (backend: string): ExecutionEnvironment =>
      new Proxy(h.ctx.env, { get: (t, k) => (k === "backend" ? backend : Reflect.get(t, k, t)) });
    const ssh = ctxWith({ env: withBackend("ssh"), approvals: session() });
    const denied = await checkCommandApproval("rm -rf /", ssh);
    expect(denied.allowed).toBe(false);
    if (!denied.allowed) expect(JSON.parse(denied.result).error).toMatch(/^Command needs approval/);
    const sshYolo = ctxWith({ env: withBackend("ssh"), approvals: session({ yolo: true }) });
    expect((await checkCommandApproval("rm -rf /", sshYolo)).allowed).toBe(true);
    const docker = ctxWith({ env: withBackend("docker"), approvals: session() });
    expect((await checkCommandApproval("rm -rf /", docker)).allowed).toBe(true);
  });

  it("auto-denies in worker contexts even when the parent could ask", async () => {
    const approve = scripted("once");
    const parent = ctxWith({ approvals: session(), approve, interactive: true });
    const r = await runIn(workerContext(parent), "rm -rf src");
    expect(r.error).toMatch(/no one to ask/);
    expect(approve.asked).toHaveLength(0);
  });

  it("asks one question at a time, and a session answer covers the queued ones", async () => {
    let release: (c: ApprovalChoice) => void = () => {};
    const asked: string[] = [];
    const approve: ApproveFn = (req) => {
      asked.push(req.command);
      return new Promise<ApprovalChoice>((resolve) => {
        release = resolve;
      });
    };
    const ctx = ctxWith({ approvals: session(), approve, interactive: true });
    const first = checkCommandApproval("rm -rf a1", ctx);
    const second = checkCommandApproval("rm -rf a2", ctx);
    await new Promise((r) => setTimeout(r, 20));
    expect(asked).toEqual(["rm -rf a1"]);
    release("session");
    expect((await first).allowed).toBe(true);
    expect((await second).allowed).toBe(true);
    expect(asked).toEqual(["rm -rf a1"]);
  });

  it("judges absolute paths inside the working directory as the relative paths they are", async () => {
    const approve = scripted();
    const ctx = ctxWith({ approvals: session(), approve, interactive: true });
    await mkdir(join(h.root, "node_modules"));
    expect((await runIn(ctx, `rm -rf ${join(h.root, "node_modules")}`)).exit_code).toBe(0);
    expect(approve.asked).toHaveLength(0);
  });

  it("conversations on one policy share the allowlist and verdicts, and nothing else", async () => {
    const configPath = join(h.home, "config.yaml");
    const policy = new ApprovalPolicy({ mode: "manual", timeoutSeconds: 60, configPath });
    const yolo = new ApprovalSession(policy, { yolo: true });
    const plain = new ApprovalSession(policy);
    const off = new ApprovalSession(policy, { mode: "off" });
    expect([yolo.mode, plain.mode, off.mode]).toEqual(["manual", "manual", "off"]);
    for (const d of ["a", "b"]) await mkdir(join(h.root, d));
    expect((await runIn(ctxWith({ approvals: yolo }), "rm -rf a")).exit_code).toBe(0);
    expect((await runIn(ctxWith({ approvals: plain }), "rm -rf b")).error).toMatch(/no one to ask/);
    expect((await runIn(ctxWith({ approvals: off }), "rm -rf b")).exit_code).toBe(0);

    const match = { key: "recursive_delete", description: "recursive delete", class: "delete" as const };
    const rmMatch = { ...match, severity: "dangerous" as const, command: "rm -rf x" };
    const other = new ApprovalSession(policy);
    // "session" answers stay with their conversation state, even under the same conversation id.
    plain.approveForSession([rmMatch], "c1");
    expect(plain.isApproved([rmMatch], "c1")).toBe(true);
    expect(other.isApproved([rmMatch], "c1")).toBe(false);
    // The judge's verdicts and "always" are the process's.
    plain.rememberVerdict("rm -rf x", { decision: "approve", reason: "build output" });
    expect(other.cachedVerdict("rm -rf x")?.decision).toBe("approve");
    expect(plain.approveAlways([rmMatch])).toBeUndefined();
    expect(other.isApproved([rmMatch], "c2")).toBe(true);
    expect(await readFile(configPath, "utf8")).toMatch(/command_allowlist:\n\s+- recursive_delete/);
  });
});
