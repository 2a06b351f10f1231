import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApprovalChoice, ApprovalRequest } from "../../src/tools/approval/types.js";
import { scripted, scriptPerRequest, terminal, toolResultOf, useRuntime } from "./support.js";

const h = useRuntime();

const MANUAL = "approvals:\n  mode: manual\ntoolsets: [terminal]\n";

describe("two chats in one process: approval state is per conversation", () => {
  it("one chat's yolo or mode never applies to another", async () => {
    const t = h.start(MANUAL);
    for (const d of ["a", "b", "c"]) mkdirSync(join(t.box.work, d));
    h.fake.setResponder(
      scriptPerRequest({
        "chat A": [terminal("rm -rf a")],
        "chat B": [terminal("rm -rf b")],
        "chat C": [terminal("rm -rf c")],
      }),
    );
    const { runtime } = t;
    const yolo = runtime.newAgent(t.listener("A"), { yolo: true });
    const off = runtime.newAgent(t.listener("B"), { approvalMode: "off" });
    const plain = runtime.newAgent(t.listener("C"));
    const results = await Promise.all([
      yolo.runConversation("chat A: clean up"),
      off.runConversation("chat B: clean up"),
      plain.runConversation("chat C: clean up"),
    ]);
    expect(results.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
    expect(existsSync(join(t.box.work, "a"))).toBe(false);
    expect(existsSync(join(t.box.work, "b"))).toBe(false);
    expect(existsSync(join(t.box.work, "c"))).toBe(true);
    expect(String(toolResultOf(h.fake, "chat C", "terminal")?.error)).toMatch(/no one to ask/);
    expect([yolo.approvals?.yolo, off.approvals?.yolo, plain.approvals?.yolo]).toEqual([true, false, false]);
    expect([yolo.approvals?.mode, off.approvals?.mode, plain.approvals?.mode]).toEqual([
      "manual",
      "off",
      "manual",
    ]);

    // /yolo off in the first chat and on in the third: each switch stays in its own chat.
    yolo.approvals!.yolo = false;
    plain.approvals!.yolo = true;
    expect(off.approvals?.yolo).toBe(false);
    mkdirSync(join(t.box.work, "a"));
    await Promise.all([yolo.runConversation("chat A: again"), plain.runConversation("chat C: again")]);
    expect(existsSync(join(t.box.work, "c"))).toBe(false);
    expect(existsSync(join(t.box.work, "a"))).toBe(true);
    expect(String(toolResultOf(h.fake, "chat A", "terminal")?.error)).toMatch(/no one to ask/);
  });

  it("one chat's pending approval prompt does not hold up another chat's prompt", async () => {
    const t = h.start(MANUAL);
    for (const d of ["slow", "quick"]) mkdirSync(join(t.box.work, d));
    h.fake.setResponder(
      scriptPerRequest({ "chat slow": [terminal("rm -rf slow")], "chat quick": [terminal("rm -rf quick")] }),
    );
    let answerSlow: (c: ApprovalChoice) => void = () => {};
    const slowAsked = new Promise<ApprovalRequest>((resolveAsked) => {
      const approve = (req: ApprovalRequest): Promise<ApprovalChoice> => {
        resolveAsked(req);
        return new Promise((resolve) => {
          answerSlow = resolve;
        });
      };
      t.runtime.newAgent(t.listener("slow"), { approve }).runConversation("chat slow: clean up");
    });
    await slowAsked;
    const quickApprove = scripted("once");
    const quick = t.runtime.newAgent(t.listener("quick"), { approve: quickApprove });
    const result = await quick.runConversation("chat quick: clean up");
    // Answered and run while the other chat's question is still open.
    expect(result.status).toBe("completed");
    expect(quickApprove.asked).toHaveLength(1);
    expect(existsSync(join(t.box.work, "quick"))).toBe(false);
    expect(existsSync(join(t.box.work, "slow"))).toBe(true);
    answerSlow("once");
  });
});
