import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/core/config-defaults.js";
import type { ModelTarget } from "../../src/llm/types.js";
import { createApprovalPolicy } from "../../src/runtime/approval-setup.js";
import { checkCommandApproval } from "../../src/tools/approval/gate.js";
import { createLlmJudge, JUDGE_SYSTEM_PROMPT, parseVerdict } from "../../src/tools/approval/judge.js";
import { ApprovalSession } from "../../src/tools/approval/session.js";
import type { ApprovalChoice, ApprovalRequest } from "../../src/tools/approval/types.js";
import type { ToolContext } from "../../src/tools/context.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { createHarness, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
let fake: FakeLlm;
let main: ModelTarget;

beforeEach(async () => {
  h = await createHarness();
  fake = await startFakeLlm();
  main = {
    provider: "custom",
    apiMode: "chat_completions",
    model: "judge-model",
    baseUrl: fake.openaiBaseUrl,
    apiKey: "test-key",
  };
  await mkdir(join(h.root, "generated"));
  await writeFile(join(h.root, "generated", "x.js"), "x\n");
});
afterEach(async () => {
  await fake.close();
  await h.dispose();
});

const smartSession = (): ApprovalSession => {
  const config = structuredClone(DEFAULT_CONFIG);
  config.approvals.mode = "smart";
  const policy = createApprovalPolicy({
    config,
    configPath: join(h.home, "config.yaml"),
    home: h.home,
    main,
  });
  return new ApprovalSession(policy);
};

const run = async (ctx: ToolContext, command: string): Promise<Record<string, unknown>> =>
  JSON.parse(await h.registry.dispatch("terminal", { command }, ctx)) as Record<string, unknown>;

describe("smart approval against a model server", () => {
  it("runs what the approval model rates low risk, without asking, and asks it once per command", async () => {
    fake.enqueue({ text: '{"risk": "low", "reason": "a generated build folder"}' });
    const asked: ApprovalRequest[] = [];
    const approve = async (r: ApprovalRequest): Promise<ApprovalChoice> => {
      asked.push(r);
      return "deny";
    };
    const ctx: ToolContext = { ...h.ctx, approvals: smartSession(), approve, interactive: true };
    const r = await run(ctx, "rm -rf generated");
    expect(r.exit_code).toBe(0);
    expect(existsSync(join(h.root, "generated"))).toBe(false);
    expect(asked).toHaveLength(0);
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]!.body as { messages: { role: string; content: string }[] };
    expect(body.messages[0]!.content).toBe(JUDGE_SYSTEM_PROMPT);
    expect(body.messages[1]!.content).toContain("rm -rf generated");
    expect(body.messages[1]!.content).toContain("recursive delete");
    await mkdir(join(h.root, "generated"));
    expect((await run(ctx, "rm -rf generated")).exit_code).toBe(0);
    expect(fake.requests).toHaveLength(1);
  });

  it("refuses what the approval model rates high risk, with its reason", async () => {
    fake.enqueue({ text: '```json\n{"risk": "high", "reason": "deletes the user\'s source tree"}\n```' });
    const ctx: ToolContext = {
      ...h.ctx,
      approvals: smartSession(),
      approve: async () => "once",
      interactive: true,
    };
    const r = await run(ctx, "rm -rf generated");
    expect(r.error).toMatch(/^Blocked by the approval check: deletes the user's source tree/);
    expect(existsSync(join(h.root, "generated"))).toBe(true);
  });

  it("asks the user when the model is uncertain, passing its note along", async () => {
    fake.enqueue({ text: '{"risk": "uncertain", "reason": "cannot tell what generated holds"}' });
    const asked: ApprovalRequest[] = [];
    const approve = async (r: ApprovalRequest): Promise<ApprovalChoice> => {
      asked.push(r);
      return "once";
    };
    const ctx: ToolContext = { ...h.ctx, approvals: smartSession(), approve, interactive: true };
    expect((await run(ctx, "rm -rf generated")).exit_code).toBe(0);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.judgeNote).toBe("cannot tell what generated holds");
  });

  it("behaves as manual when no approval model answers: non-interactive runs deny", async () => {
    const approvals = new ApprovalSession({
      mode: "smart",
      timeoutSeconds: 60,
      judge: createLlmJudge(async () => undefined),
    });
    const gate = await checkCommandApproval("rm -rf generated", { ...h.ctx, approvals });
    expect(gate.allowed).toBe(false);
    if (!gate.allowed) expect(JSON.parse(gate.result).error).toMatch(/no one to ask/);
  });
});

describe("parseVerdict", () => {
  it("reads JSON, fenced JSON and bare words; anything else escalates", () => {
    expect(parseVerdict('{"risk":"low","reason":"cache"}')).toEqual({ decision: "approve", reason: "cache" });
    expect(parseVerdict('Sure!\n{"risk": "HIGH", "reason": "wipes /etc"}')).toEqual({
      decision: "deny",
      reason: "wipes /etc",
    });
    expect(parseVerdict("high").decision).toBe("deny");
    expect(parseVerdict("I am not sure about this one").decision).toBe("escalate");
    expect(parseVerdict("").decision).toBe("escalate");
  });
});
