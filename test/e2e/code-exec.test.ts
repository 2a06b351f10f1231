import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox, startHermes } from "../support/cli.js";
import {
  openaiConfig,
  toolMessagesOf as toolMessages,
  useFakeLlm,
  type WireMessage,
} from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

interface ExecResult {
  status: string;
  output: string;
  error?: string;
  tool_calls_made: number;
  duration_seconds: number;
}
const execResult = (m: WireMessage | undefined): ExecResult => JSON.parse(String(m?.content)) as ExecResult;
const descriptionOf = (r: RecordedRequest, tool: string): string =>
  (r.body as { tools: Array<{ function: { name: string; description: string } }> }).tools.find(
    (t) => t.function.name === tool,
  )?.function.description ?? "";

const config = (extra = ""): string => openaiConfig(fake, extra);
const exec = (code: string) => ({ toolCalls: [{ name: "execute_code", arguments: { code } }] });

const REFACTOR = `
from hermes_tools import search_files, read_file, patch
import json
found = search_files("old_api_call", path=".", file_glob="*.py", output_mode="files_with_matches")
paths = [p for p in found["results"].splitlines() if p]
fixed = []
for p in paths:
    if "old_api_call(" in read_file(p)["content"]:
        r = patch(path=p, old_string="old_api_call(", new_string="new_api_call(", replace_all=True)
        if "error" not in r:
            fixed.append(p.split("/")[-1])
print(json.dumps({"fixed": sorted(fixed), "matched": len(paths)}))
`;

describe("execute_code through the CLI", () => {
  it("runs a script that searches, reads and patches files in one model turn", async () => {
    const box = sandbox(config());
    writeFileSync(join(box.work, "a.py"), "x = old_api_call(1)\ny = old_api_call(2)\n");
    writeFileSync(join(box.work, "b.py"), "z = old_api_call(3)\n");
    writeFileSync(join(box.work, "notes.txt"), "old_api_call( stays here\n");
    fake.enqueue(exec(REFACTOR), { text: "Both files now use new_api_call." });
    const r = await runHermes(["chat", "-q", "replace old_api_call"], {
      env: cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "sk-e2e-parent-only-0123456789abcd" }),
      cwd: box.work,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Both files now use new_api_call.");
    expect(readFileSync(join(box.work, "a.py"), "utf8")).toBe("x = new_api_call(1)\ny = new_api_call(2)\n");
    expect(readFileSync(join(box.work, "b.py"), "utf8")).toBe("z = new_api_call(3)\n");
    expect(readFileSync(join(box.work, "notes.txt"), "utf8")).toContain("old_api_call(");
    expect(fake.requests).toHaveLength(2);
    // The description names the functions this session's scripts can call.
    const description = descriptionOf(fake.requests[0]!, "execute_code");
    expect(description).toMatch(
      /Functions in hermes_tools, with the tools' arguments[^:]*: [^.]*search_files, patch/,
    );
    expect(description).not.toContain("delegate_task");
    // Only the script's printout reaches the model: one tool message, no inner results.
    const tools = toolMessages(fake.requests[1]!);
    expect(tools).toHaveLength(1);
    const result = execResult(tools[0]);
    expect(result.status).toBe("success");
    expect(JSON.parse(result.output)).toEqual({ fixed: ["a.py", "b.py"], matched: 2 });
    expect(result.tool_calls_made).toBe(5);
    // Inner calls show up for the user and in the agent log.
    expect(r.stderr).toContain("↳ search_files");
    expect(r.stderr).toContain("↳ patch: b.py");
    const log = readFileSync(join(box.home, "logs", "agent.log"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { msg: string; tool?: string; parent?: string });
    const inner = log.filter((l) => l.msg === "inner tool");
    expect(inner.map((l) => l.tool)).toEqual(["search_files", "read_file", "patch", "read_file", "patch"]);
    expect(inner.every((l) => l.parent === "execute_code")).toBe(true);
    // ...and in the stored transcript, right after the message that asked for execute_code.
    const db = new DatabaseSync(join(box.home, "state.db"), { readOnly: true });
    const { id } = db.prepare("SELECT id FROM sessions").get() as { id: string };
    db.close();
    const exported = await runHermes(["sessions", "export", id, "-f", "jsonl"], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
    });
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; role?: string; toolName?: string; result?: string });
    const kinds = lines.map((l) =>
      l.type === "message" ? l.role : l.type === "session" ? "session" : l.toolName,
    );
    expect(kinds).toEqual([
      "session",
      "user",
      "assistant",
      "search_files",
      "read_file",
      "patch",
      "read_file",
      "patch",
      "tool",
      "assistant",
    ]);
    expect(lines[4]!.result).toContain("old_api_call(");
    const md = await runHermes(["sessions", "export", id, "-f", "md"], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
    });
    expect(md.stdout).toContain("↳ execute_code called `patch`");
  });

  it("returns a syntax error to the model, and scripts do not use up the iteration budget", async () => {
    const box = sandbox(config("agent:\n  max_turns: 2\n"));
    fake.enqueue(
      exec("print('unclosed'"),
      exec("import os\nprint(os.environ.get('OPENAI_API_KEY', 'no key here'))"),
      { text: "done after fixing the script" },
    );
    const r = await runHermes(["chat", "-q", "compute"], {
      env: cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "sk-e2e-parent-only-0123456789abcd" }),
      cwd: box.work,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("done after fixing the script");
    const first = execResult(toolMessages(fake.requests[1]!)[0]);
    expect(first.status).toBe("error");
    expect(first.error).toMatch(/SyntaxError/);
    const second = execResult(toolMessages(fake.requests[2]!)[1]);
    expect(second).toMatchObject({ status: "success", output: "no key here\n" });
    // Three model calls with max_turns 2: both execute_code turns were refunded.
    expect(fake.requests).toHaveLength(3);
    expect(r.stderr).not.toContain("Iteration limit");
  });

  it("reports a runtime error, an excluded tool, capped output, a timeout; the socket is gone after", async () => {
    const box = sandbox(config("code_execution:\n  timeout: 2\n"));
    fake.enqueue(
      exec("print('before')\nraise ValueError('broken at step 2')"),
      exec(
        "import hermes_tools\n" +
          "print(hasattr(hermes_tools, 'delegate_task'), hasattr(hermes_tools, 'read_file'))\n" +
          "print(hermes_tools._call('delegate_task', {'goal': 'x'})['error'])",
      ),
      exec("import os\nprint(os.environ['HERMES_RPC_SOCKET'])\nprint('x' * 200000)"),
      exec("import time\nprint('started', flush=True)\ntime.sleep(30)"),
      { text: "all four reported" },
    );
    const started = Date.now();
    const r = await runHermes(["-z", "try scripts"], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("all four reported\n");
    const results = fake.requests.slice(1).map((q) => execResult(toolMessages(q).at(-1)));
    expect(results[0]).toMatchObject({ status: "error", output: "before\n" });
    expect(results[0]!.error).toMatch(/Traceback[\s\S]*line 2[\s\S]*ValueError: broken at step 2/);
    expect(results[1]).toMatchObject({ status: "success", tool_calls_made: 0 });
    expect(results[1]!.output).toBe(
      "False True\nTool 'delegate_task' cannot be called from execute_code; call it as a normal tool instead.\n",
    );
    const [socketPath, ...rest] = results[2]!.output.split("\n");
    expect(results[2]!.status).toBe("success");
    expect(Buffer.byteLength(results[2]!.output)).toBeLessThan(51_000);
    expect(rest.join("\n")).toMatch(/\[\.\.\. \d+ bytes of stdout cut: stdout is capped at 50 KB/);
    expect(socketPath).toMatch(/rpc\.sock$/);
    expect(existsSync(socketPath!)).toBe(false);
    expect(results[3]).toMatchObject({ status: "timeout", output: "started\n" });
    expect(results[3]!.error).toMatch(/time limit/);
    expect(results[3]!.duration_seconds).toBeGreaterThanOrEqual(2);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("an interrupt kills a running script and records the interrupted result", async () => {
    const box = sandbox(config());
    const pidFile = join(box.work, "script.pid");
    fake.enqueue(
      exec(`import os, time\nopen(${JSON.stringify(pidFile)}, 'w').write(str(os.getpid()))\ntime.sleep(60)`),
      { text: "never asked" },
    );
    const run = startHermes(["chat", "-q", "wait"], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
    });
    for (let i = 0; i < 200 && !existsSync(pidFile); i++) await new Promise((res) => setTimeout(res, 50));
    const pid = Number(readFileSync(pidFile, "utf8"));
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(() => process.kill(pid, 0)).toThrow();
    const db = new DatabaseSync(join(box.home, "state.db"), { readOnly: true });
    const stored = db.prepare("SELECT content FROM messages WHERE role = 'tool'").all() as Array<{
      content: string;
    }>;
    db.close();
    expect(stored).toHaveLength(1);
    expect(execResult({ role: "tool", content: stored[0]!.content })).toMatchObject({
      status: "interrupted",
      error: "[execution interrupted — user sent a new message]",
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("runs the JavaScript flavour with concurrent calls and no provider key in its environment", async () => {
    const box = sandbox(config());
    for (const n of [1, 2, 3]) writeFileSync(join(box.work, `f${n}.txt`), `file ${n}\n`);
    const code = [
      'import { read_file } from "hermes_tools";',
      'const rs = await Promise.all([1, 2, 3].map((n) => read_file({ path: "f" + n + ".txt" })));',
      'console.log(rs.map((r) => r.content.trim()).join(" | "), process.env.OPENAI_API_KEY ?? "no key");',
    ].join("\n");
    fake.enqueue(
      { toolCalls: [{ name: "execute_code", arguments: { code, language: "javascript" } }] },
      { text: "read three" },
    );
    const r = await runHermes(["-z", "read them"], {
      env: cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "sk-e2e-parent-only-0123456789abcd" }),
      cwd: box.work,
    });
    expect(r.code, r.stderr).toBe(0);
    const result = execResult(toolMessages(fake.requests[1]!)[0]);
    expect(result).toMatchObject({ status: "success", tool_calls_made: 3 });
    expect(result.output).toBe("1|file 1 | 1|file 2 | 1|file 3 no key\n");
  });

  it("refuses the 51st tool call of a script", async () => {
    const box = sandbox(config());
    writeFileSync(join(box.work, "a.txt"), "a\n");
    fake.enqueue(
      exec(
        "from hermes_tools import read_file\n" +
          "rs = [read_file('a.txt') for _ in range(51)]\n" +
          "print(sum('content' in x for x in rs), rs[-1]['error'])",
      ),
      { text: "hit the limit" },
    );
    const r = await runHermes(["chat", "-q", "loop"], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
    });
    expect(r.code).toBe(0);
    const result = execResult(toolMessages(fake.requests[1]!)[0]);
    expect(result.status).toBe("success");
    expect(result.tool_calls_made).toBe(50);
    expect(result.output).toMatch(
      /^50 Tool call limit reached: a script may make 50 tool calls; this one was not run\./,
    );
  });
});
