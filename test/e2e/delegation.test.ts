import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import {
  messagesOf,
  openaiConfig,
  toolMessagesOf as toolResults,
  useFakeLlm,
  type WireMessage,
} from "../support/e2e.js";
import { type FakeLlm, type RecordedRequest, type ScriptedTurn, startFakeLlm } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const text = (c: unknown): string => (typeof c === "string" ? c : JSON.stringify(c));
const systemOf = (r: RecordedRequest): string =>
  text(messagesOf(r).find((m) => m.role === "system")?.content);
/** The goal a child works on (from its subagent system prompt), or undefined for the top-level agent. */
const goalOf = (r: RecordedRequest): string | undefined => /## Your task\n(.*)/.exec(systemOf(r))?.[1];
const toolNames = (r: RecordedRequest): string[] =>
  ((r.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name);
const delegateCall = (args: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name: "delegate_task", arguments: args }],
});
interface Report {
  goal: string;
  status: string;
  summary: string;
  sessionId: string;
  depth: number;
  role: string;
  error?: string;
}
const reportsIn = (m: WireMessage | undefined): Report[] =>
  (JSON.parse(text(m?.content)) as { results: Report[] }).results;

const config = (extra = ""): string => openaiConfig(fake, extra);

function sessionsIn(home: string): Array<{ id: string; source: string; parent_session_id: string | null }> {
  const db = new DatabaseSync(join(home, "state.db"));
  try {
    return db.prepare("SELECT id, source, parent_session_id FROM sessions").all() as Array<{
      id: string;
      source: string;
      parent_session_id: string | null;
    }>;
  } finally {
    db.close();
  }
}

describe("delegate_task through the CLI", () => {
  it("runs three children concurrently, returns each summary and stores child sessions under the parent", async () => {
    const box = sandbox(config());
    const CHILD_DELAY = 2500;
    fake.setResponder((r) => {
      const goal = goalOf(r);
      if (goal) return { text: `Report for ${goal}: checked it, no files changed.`, delayMs: CHILD_DELAY };
      if (toolResults(r).length === 0)
        return delegateCall({
          tasks: [{ goal: "alpha job" }, { goal: "beta job" }, { goal: "gamma job", context: "ctx-gamma" }],
        });
      return { text: "All three reported." };
    });
    const res = await runHermes(["chat", "-q", "split the work"], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("All three reported.");
    // The CLI shows one compact line per child start and finish.
    expect(res.stderr).toContain("↳ subagent beta job started");
    expect(res.stderr).toContain("↳ subagent beta job completed");
    const children = fake.requests.filter((r) => goalOf(r) !== undefined);
    expect(children.map(goalOf).sort()).toEqual(["alpha job", "beta job", "gamma job"]);
    // Run one after another, each would arrive at least CHILD_DELAY after the previous one.
    const arrivals = children.map((r) => r.receivedAt);
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(CHILD_DELAY);
    expect(systemOf(children.find((r) => goalOf(r) === "gamma job")!)).toContain("ctx-gamma");
    // Children never see the parent's conversation and lack the blocked tools.
    for (const c of children) {
      expect(messagesOf(c).filter((m) => m.role === "user")).toHaveLength(1);
      expect(toolNames(c)).not.toContain("delegate_task");
      expect(toolNames(c)).not.toContain("memory");
      expect(toolNames(c)).toContain("terminal");
    }
    const final = fake.requests.at(-1)!;
    const reports = reportsIn(toolResults(final)[0]);
    expect(reports.map((x) => x.status)).toEqual(["completed", "completed", "completed"]);
    expect(reports[1]!.summary).toBe("Report for beta job: checked it, no files changed.");
    const rows = sessionsIn(box.home);
    const parent = rows.find((x) => x.parent_session_id === null)!;
    const subs = rows.filter((x) => x.source === "subagent");
    expect(subs).toHaveLength(3);
    for (const s of subs) expect(s.parent_session_id).toBe(parent.id);
    expect(new Set(subs.map((s) => s.id))).toEqual(new Set(reports.map((x) => x.sessionId)));
  });

  it("refuses a grandchild at max_spawn_depth 1 and allows one for an orchestrator at max_spawn_depth 2", async () => {
    const script = (r: RecordedRequest): ScriptedTurn => {
      const goal = goalOf(r);
      if (goal === "plan it") {
        if (toolResults(r).length === 0) return delegateCall({ goal: "leaf work" });
        return { text: `orchestrator saw: ${text(toolResults(r)[0]?.content).slice(0, 300)}` };
      }
      if (goal === "leaf work") return { text: "leaf finished" };
      if (toolResults(r).length === 0) return delegateCall({ goal: "plan it", role: "orchestrator" });
      return { text: "top done" };
    };
    fake.setResponder(script);
    const flat = sandbox(config());
    const r1 = await runHermes(["-z", "go"], { env: cleanEnv({ HERMES_HOME: flat.home }), cwd: flat.work });
    expect(r1.code).toBe(0);
    const child1 = fake.requests.filter((r) => goalOf(r) === "plan it");
    expect(toolNames(child1[0]!)).not.toContain("delegate_task");
    expect(systemOf(child1[0]!)).not.toContain("orchestrator");
    expect(text(toolResults(child1[1]!)[0]?.content)).toMatch(
      /'delegate_task' is not available here: subagents cannot use it/,
    );
    expect(fake.requests.some((r) => goalOf(r) === "leaf work")).toBe(false);
    expect(reportsIn(toolResults(fake.requests.at(-1)!)[0])[0]!.role).toBe("leaf");

    fake.requests.length = 0;
    const deep = sandbox(config("delegation:\n  max_spawn_depth: 2\n"));
    const r2 = await runHermes(["-z", "go"], { env: cleanEnv({ HERMES_HOME: deep.home }), cwd: deep.work });
    expect(r2.code).toBe(0);
    const orch = fake.requests.filter((r) => goalOf(r) === "plan it");
    expect(toolNames(orch[0]!)).toContain("delegate_task");
    expect(systemOf(orch[0]!)).toContain("You are at depth 1; the tree is limited to depth 2");
    const grand = fake.requests.filter((r) => goalOf(r) === "leaf work");
    expect(grand).toHaveLength(1);
    expect(toolNames(grand[0]!)).not.toContain("delegate_task");
    const orchReport = reportsIn(toolResults(orch[1]!)[0])[0]!;
    expect(orchReport).toMatchObject({ status: "completed", summary: "leaf finished", depth: 2 });
    const top = reportsIn(toolResults(fake.requests.at(-1)!)[0])[0]!;
    expect(top).toMatchObject({ role: "orchestrator", depth: 1, status: "completed" });
    expect(top.summary).toContain("leaf finished");
    const rows = sessionsIn(deep.home);
    expect(rows.find((x) => x.id === orchReport.sessionId)?.parent_session_id).toBe(top.sessionId);
  });

  it("reports a hung child as stale and a slow one as timed out without hanging the parent", async () => {
    fake.setResponder((r) => {
      const goal = goalOf(r);
      if (goal === "hang forever") return { fault: { kind: "hang" } };
      if (goal === "too slow") return { text: "late", delayMs: 60_000 };
      if (goal === "quick") return { text: "quick done" };
      if (toolResults(r).length === 0)
        return delegateCall({ tasks: [{ goal: "hang forever" }, { goal: "quick" }] });
      return { text: "parent carried on" };
    });
    const box = sandbox(
      config(
        "delegation:\n  heartbeat_interval: 0.2\n  heartbeat_stale_cycles_idle: 4\n  child_timeout_seconds: 0\n",
      ),
    );
    const r1 = await runHermes(["-z", "go"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(r1.code).toBe(0);
    expect(r1.stdout).toContain("parent carried on");
    const reports = reportsIn(toolResults(fake.requests.at(-1)!)[0]);
    expect(reports[0]).toMatchObject({ goal: "hang forever", status: "stale" });
    expect(reports[0]!.error).toMatch(/no progress/);
    expect(reports[1]).toMatchObject({ goal: "quick", status: "completed", summary: "quick done" });

    fake.setResponder((r) => {
      if (goalOf(r) === "too slow") return { text: "late", delayMs: 60_000 };
      if (toolResults(r).length === 0) return delegateCall({ goal: "too slow" });
      return { text: "parent carried on again" };
    });
    const box2 = sandbox(config("delegation:\n  child_timeout_seconds: 1\n"));
    const r2 = await runHermes(["-z", "go"], { env: cleanEnv({ HERMES_HOME: box2.home }), cwd: box2.work });
    expect(r2.code).toBe(0);
    expect(r2.stdout).toContain("parent carried on again");
    const rep = reportsIn(toolResults(fake.requests.at(-1)!)[0])[0]!;
    expect(rep.status).toBe("timeout");
    expect(rep.error).toMatch(/child_timeout_seconds/);
  });

  it("children use delegation.model, or their own provider endpoint with delegation.provider/base_url", async () => {
    const script = (r: RecordedRequest): ScriptedTurn => {
      if (goalOf(r)) return { text: `child on ${String((r.body as { model: string }).model)}` };
      return toolResults(r).length === 0 ? delegateCall({ goal: "probe model" }) : { text: "fin" };
    };
    fake.setResponder(script);
    const box = sandbox(config("delegation:\n  model: cheap-model\n"));
    const r1 = await runHermes(["-z", "go"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(r1.code).toBe(0);
    const child = fake.requests.find((r) => goalOf(r) !== undefined)!;
    expect((child.body as { model: string }).model).toBe("cheap-model");
    expect((fake.requests[0]!.body as { model: string }).model).toBe("test-model");

    const other = await startFakeLlm();
    try {
      other.setResponder(script);
      fake.requests.length = 0;
      const box2 = sandbox(
        config(`delegation:\n  provider: custom\n  base_url: ${other.openaiBaseUrl}\n  model: side-model\n`),
      );
      const r2 = await runHermes(["-z", "go"], { env: cleanEnv({ HERMES_HOME: box2.home }), cwd: box2.work });
      expect(r2.code).toBe(0);
      expect(fake.requests.some((r) => goalOf(r) !== undefined)).toBe(false);
      expect(other.requests).toHaveLength(1);
      expect((other.requests[0]!.body as { model: string }).model).toBe("side-model");
      expect(reportsIn(toolResults(fake.requests.at(-1)!)[0])[0]!.summary).toBe("child on side-model");

      // The child's own endpoint failing for good: it falls back to the parent's model and endpoint.
      other.setResponder(() => ({
        fault: { kind: "http", status: 404, body: { error: { message: "no such model" } } },
      }));
      fake.requests.length = 0;
      const r3 = await runHermes(["-z", "go"], { env: cleanEnv({ HERMES_HOME: box2.home }), cwd: box2.work });
      expect(r3.code, r3.stderr).toBe(0);
      const childOnParent = fake.requests.find((r) => goalOf(r) !== undefined)!;
      expect((childOnParent.body as { model: string }).model).toBe("test-model");
      expect(reportsIn(toolResults(fake.requests.at(-1)!)[0])[0]!.summary).toBe("child on test-model");
    } finally {
      await other.close();
    }
  });

  it("background: true returns an id at once and the summary arrives with a later tool result", async () => {
    fake.setResponder((r) => {
      if (goalOf(r) === "side quest") return { text: "side quest result XYZ" };
      const tools = toolResults(r);
      if (tools.length === 0) return delegateCall({ goal: "side quest", background: true });
      if (tools.length === 1)
        return { toolCalls: [{ name: "terminal", arguments: { command: "sleep 2; echo waited" } }] };
      return { text: "background seen" };
    });
    const box = sandbox(config());
    const res = await runHermes(["-z", "go"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(res.code).toBe(0);
    const parentReqs = fake.requests.filter((r) => goalOf(r) === undefined);
    const first = JSON.parse(text(toolResults(parentReqs[1]!)[0]?.content)) as { id: string; status: string };
    expect(first.status).toBe("started");
    expect(first.id).toMatch(/^deleg_/);
    const later = text(toolResults(parentReqs[2]!)[1]?.content);
    expect(later).toContain("waited");
    expect(later).toContain(`[Background delegation ${first.id} finished]`);
    expect(later).toContain("side quest result XYZ");
  });

  it("hermes -z waits for a background delegation before its answer instead of dropping it", async () => {
    fake.setResponder((r) => {
      if (goalOf(r) === "slow side task") return { text: "side result 77", delayMs: 800 };
      const msgs = messagesOf(r);
      const last = msgs.at(-1)!;
      if (toolResults(r).length === 0) return delegateCall({ goal: "slow side task", background: true });
      if (last.role === "tool") return { text: "Started it in the background." };
      return { text: `Final: ${/side result \d+/.exec(text(last.content))?.[0] ?? "nothing"}` };
    });
    const box = sandbox(config());
    const res = await runHermes(["-z", "go"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe("Final: side result 77\n");
    const parentReqs = fake.requests.filter((r) => goalOf(r) === undefined);
    expect(parentReqs).toHaveLength(3);
    const last = messagesOf(parentReqs[2]!);
    expect(last.at(-2)).toMatchObject({ role: "assistant", content: "Started it in the background." });
    expect(last.at(-1)!.role).toBe("user");
    expect(text(last.at(-1)!.content)).toContain("[Background delegation deleg_");
  });
});
