import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compactNames } from "../../../src/tools/builtin/code-exec/index.js";
import { isAlive } from "../helpers.js";
import { type CodeExecHarness, createCodeExecHarness } from "./setup.js";

let h: CodeExecHarness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const py = (...lines: string[]): string => lines.join("\n");

describe("execute_code (Python)", () => {
  it("calls tools over the socket and returns only what the script prints", async () => {
    h = await createCodeExecHarness();
    writeFileSync(join(h.root, "notes.txt"), "alpha\nbeta\n");
    const r = await h.exec({
      code: py(
        "from hermes_tools import read_file, write_file",
        "r = read_file('notes.txt')",
        "lines = [l.split('|', 1)[1] for l in r['content'].splitlines()]",
        "w = write_file(path='out.txt', content=','.join(lines))",
        "print('read', len(lines), 'lines; wrote', w.get('bytes_written', w))",
      ),
    });
    expect(r.status).toBe("success");
    expect(r.output).toMatch(/^read 2 lines; wrote/);
    expect(r.tool_calls_made).toBe(2);
    expect(typeof r.duration_seconds).toBe("number");
    expect(r).not.toHaveProperty("error");
    expect(readFileSync(join(h.root, "out.txt"), "utf8")).toBe("alpha,beta");
    // Each inner call is reported (for logs and the UI), tagged with its parent.
    expect(h.inner.map((e) => [e.parent, e.name, e.isError])).toEqual([
      ["execute_code", "read_file", false],
      ["execute_code", "write_file", false],
    ]);
    expect(h.inner[0]!.args).toEqual({ path: "notes.txt" });
  });
});

describe("execute_code: concurrency", () => {
  it("pairs concurrent calls from Python threads with their own replies", async () => {
    h = await createCodeExecHarness();
    for (let i = 0; i < 12; i++) writeFileSync(join(h.root, `f${i}.txt`), `content-${i}\n`);
    const r = await h.exec({
      code: py(
        "from concurrent.futures import ThreadPoolExecutor",
        "from hermes_tools import read_file",
        "def one(i):",
        "    return i, read_file(f'f{i}.txt')['content']",
        "with ThreadPoolExecutor(max_workers=6) as pool:",
        "    results = list(pool.map(one, range(12)))",
        "bad = [i for i, c in results if f'content-{i}' not in c]",
        "print('mismatched', bad)",
      ),
    });
    expect(r.status).toBe("success");
    expect(r.output).toBe("mismatched []\n");
    expect(r.tool_calls_made).toBe(12);
  });

  it("pairs concurrent calls from JavaScript Promise.all with their own replies", async () => {
    h = await createCodeExecHarness();
    for (let i = 0; i < 12; i++) writeFileSync(join(h.root, `f${i}.txt`), `content-${i}\n`);
    const r = await h.exec({
      language: "javascript",
      code: [
        'import { read_file } from "hermes_tools";',
        "const ids = [...Array(12).keys()];",
        "const results = await Promise.all(ids.map((i) => read_file({ path: 'f' + i + '.txt' })));",
        "const bad = ids.filter((i) => !results[i].content.includes('content-' + i));",
        "console.log(JSON.stringify({ bad, n: results.length }));",
      ].join("\n"),
    });
    expect(r.status).toBe("success");
    expect(JSON.parse(String(r.output))).toEqual({ bad: [], n: 12 });
    expect(r.tool_calls_made).toBe(12);
  });
});

describe("execute_code: limits", () => {
  it("caps stdout at 50 KB keeping head and tail, with a marker saying how much was cut", async () => {
    h = await createCodeExecHarness();
    const r = await h.exec({
      code: py("import sys", "sys.stdout.write('HEAD' + 'x' * 200000 + 'TAIL')"),
    });
    expect(r.status).toBe("success");
    const out = String(r.output);
    expect(out.startsWith("HEAD")).toBe(true);
    expect(out.endsWith("TAIL")).toBe(true);
    expect(out).toMatch(/\[\.\.\. 150008 bytes of stdout cut: stdout is capped at 50 KB/);
    expect(out.length).toBeLessThan(50_200);
  });

  it("caps stderr at 10 KB and reports it with a non-zero exit", async () => {
    h = await createCodeExecHarness();
    const r = await h.exec({
      code: py(
        "import sys",
        "print('partial result')",
        "sys.stderr.write('E' * 30000 + 'LAST')",
        "sys.exit(3)",
      ),
    });
    expect(r.status).toBe("error");
    expect(r.output).toBe("partial result\n");
    const err = String(r.error);
    expect(err).toMatch(/bytes of stderr cut: stderr is capped at 10 KB/);
    expect(err.endsWith("LAST")).toBe(true);
    expect(err.length).toBeLessThan(10_200);
  });

  it("refuses the 51st tool call without running it; the script sees the error", async () => {
    h = await createCodeExecHarness();
    writeFileSync(join(h.root, "a.txt"), "a\n");
    const r = await h.exec({
      code: py(
        "from hermes_tools import read_file",
        "results = [read_file('a.txt') for _ in range(51)]",
        "print(sum(1 for x in results if 'content' in x), results[-1])",
      ),
    });
    expect(r.status).toBe("success");
    expect(r.tool_calls_made).toBe(50);
    expect(r.output).toMatch(/^50 \{'error': 'Tool call limit reached: a script may make 50 tool calls/);
    expect(h.inner).toHaveLength(50);
  });

  it("honours a smaller code_execution.max_tool_calls", async () => {
    h = await createCodeExecHarness({ config: (c) => (c.code_execution.max_tool_calls = 2) });
    const r = await h.exec({
      code: py(
        "from hermes_tools import terminal",
        "print([('error' in terminal('echo hi')) for _ in range(3)])",
      ),
    });
    expect(r.output).toBe("[False, False, True]\n");
    expect(r.tool_calls_made).toBe(2);
  });

  it("SIGTERMs a script past its timeout and SIGKILLs it (and its children) 5 s later", async () => {
    h = await createCodeExecHarness({ config: (c) => (c.code_execution.timeout = 1) });
    const pidFile = join(h.root, "pids.txt");
    const r = await h.exec({
      code: py(
        "import os, signal, subprocess, time",
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)",
        "child = subprocess.Popen(['sleep', '60'])",
        `open(${JSON.stringify(pidFile)}, 'w').write(f'{os.getpid()} {child.pid}')`,
        "print('started', flush=True)",
        "time.sleep(60)",
      ),
    });
    expect(r.status).toBe("timeout");
    expect(r.output).toBe("started\n");
    expect(r.error).toMatch(/exceeded its 1s time limit and was killed/);
    // SIGTERM was ignored: only the SIGKILL after the grace period ended it.
    expect(Number(r.duration_seconds)).toBeGreaterThanOrEqual(6);
    const [pid, childPid] = readFileSync(pidFile, "utf8").split(" ").map(Number);
    expect(isAlive(pid!)).toBe(false);
    expect(isAlive(childPid!)).toBe(false);
  });

  it("caps a per-call timeout at the configured one", async () => {
    h = await createCodeExecHarness({ config: (c) => (c.code_execution.timeout = 1) });
    const r = await h.exec({ timeout: 600, code: "import time\ntime.sleep(30)" });
    expect(r.status).toBe("timeout");
  });
});

describe("execute_code: isolation and cleanup", () => {
  it("keeps credentials out of the script's environment unless passed through", async () => {
    const saved = { key: process.env.OPENAI_API_KEY, tok: process.env.MY_SERVICE_TOKEN };
    process.env.OPENAI_API_KEY = "sk-test-not-for-scripts-0123456789";
    process.env.MY_SERVICE_TOKEN = "passed-through-value";
    try {
      h = await createCodeExecHarness({ config: (c) => (c.terminal.env_passthrough = ["MY_SERVICE_TOKEN"]) });
      const r = await h.exec({
        code: py(
          "import os",
          "print(os.environ.get('OPENAI_API_KEY'), os.environ.get('MY_SERVICE_TOKEN'))",
          "print(bool(os.environ.get('HERMES_RPC_SOCKET')), bool(os.environ.get('PATH')))",
        ),
      });
      expect(r.output).toBe("None passed-through-value\nTrue True\n");
    } finally {
      if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved.key;
      if (saved.tok === undefined) delete process.env.MY_SERVICE_TOKEN;
      else process.env.MY_SERVICE_TOKEN = saved.tok;
    }
  });

  it("removes the temp dir and socket afterwards, also after a crash", async () => {
    h = await createCodeExecHarness();
    for (const tail of ["print('ok')", "raise SystemExit(9)"]) {
      const r = await h.exec({
        code: py(
          "import os",
          "from hermes_tools import terminal",
          "terminal('true')",
          "sock = os.environ['HERMES_RPC_SOCKET']",
          "print(sock, os.path.exists(sock), flush=True)",
          tail,
        ),
      });
      const [sock, existed] = String(r.output).split("\n")[0]!.split(" ");
      expect(existed).toBe("True");
      expect(existsSync(sock!)).toBe(false);
      expect(existsSync(dirname(sock!))).toBe(false);
    }
  });

  it("runs in the session's directory in project mode and elsewhere in strict mode", async () => {
    h = await createCodeExecHarness();
    const project = await h.exec({ code: "import os\nprint(os.getcwd())" });
    expect(project.output).toBe(`${h.root}\n`);
    await h.dispose();
    h = await createCodeExecHarness({ config: (c) => (c.code_execution.mode = "strict") });
    const strict = await h.exec({ code: "import os\nprint(os.getcwd())" });
    expect(String(strict.output).trim()).not.toBe(h.root);
    expect(String(strict.output)).toMatch(/hermes-code-/);
  });

  it("exposes only allow-listed tools that the session has enabled", async () => {
    h = await createCodeExecHarness({
      enabled: ["read_file", "terminal", "process", "memory", "execute_code"],
    });
    const r = await h.exec({
      code: py(
        "import hermes_tools",
        "print(sorted(hermes_tools.__all__))",
        "print(hermes_tools._call('process', {'action': 'list'}))",
        "print(hermes_tools._call('write_file', {'path': 'x', 'content': 'y'}))",
        "print(hermes_tools._call('no_such_tool', {}))",
        "print(hermes_tools._call('execute_code', {'code': 'print(1)'}))",
      ),
    });
    expect(r.status).toBe("success");
    const lines = String(r.output).trim().split("\n");
    expect(lines[0]).toBe("['read_file', 'terminal']");
    expect(lines[1]).toMatch(/Tool 'process' cannot be called from execute_code/);
    expect(lines[2]).toMatch(/Tool 'write_file' is not enabled in this session/);
    expect(lines[3]).toMatch(/Unknown tool: no_such_tool/);
    expect(lines[4]).toMatch(/Tool 'execute_code' cannot be called from execute_code/);
    expect(r.tool_calls_made).toBe(0);
    expect(existsSync(join(h.root, "x"))).toBe(false);
  });

  it("runs terminal in the foreground only, dropping background and pty", async () => {
    h = await createCodeExecHarness();
    const r = await h.exec({
      code: py(
        "from hermes_tools import _call, terminal",
        "print(terminal('echo fg')['output'].strip())",
        "r = _call('terminal', {'command': 'echo bg', 'background': True, 'pty': True})",
        "print(r.get('output', '').strip(), 'session_id' in r)",
      ),
    });
    expect(r.output).toBe("fg\nbg False\n");
    expect(h.inner.map((e) => e.args)).toEqual([{ command: "echo fg" }, { command: "echo bg" }]);
  });

  it("keeps terminal state between calls (same task)", async () => {
    h = await createCodeExecHarness();
    const r = await h.exec({
      code: py(
        "from hermes_tools import terminal",
        "terminal('mkdir -p sub && cd sub')",
        "print(terminal('pwd')['output'].strip())",
      ),
    });
    expect(r.output).toBe(`${join(h.root, "sub")}\n`);
  });
});

describe("execute_code: failures", () => {
  it("returns a syntax error as status error with the traceback", async () => {
    h = await createCodeExecHarness();
    const r = await h.exec({ code: "def broken(:\n    pass\n" });
    expect(r.status).toBe("error");
    expect(r.error).toMatch(/SyntaxError/);
    expect(r.tool_calls_made).toBe(0);
  });

  it("returns a runtime exception with its traceback and the output printed before it", async () => {
    h = await createCodeExecHarness();
    const r = await h.exec({ code: py("print('step 1')", "raise ValueError('boom at step 2')") });
    expect(r.status).toBe("error");
    expect(r.output).toBe("step 1\n");
    expect(r.error).toMatch(/Traceback[\s\S]*ValueError: boom at step 2/);
    // The traceback starts at the script's own frame: nothing of the launcher shows.
    expect(r.error).not.toContain("<string>");
    expect(r.error).toMatch(/File ".*script\.py", line 2, in <module>/);
  });

  it("runs a Python script as __main__ leading its own process group, inside Hermes's session", async () => {
    h = await createCodeExecHarness();
    const r = await h.exec({
      code: py(
        "import os, sys",
        "print(__name__, os.path.basename(sys.argv[0]), os.getpgid(0) == os.getpid())",
        "print(os.getsid(0) == os.getsid(os.getppid()))",
      ),
    });
    expect(r.status, String(r.error)).toBe("success");
    expect(r.output).toBe("__main__ script.py True\nTrue\n");
  });

  it("kills the script on interrupt and says so", async () => {
    h = await createCodeExecHarness();
    const abort = new AbortController();
    const pidFile = join(h.root, "pid.txt");
    const pending = h.exec(
      {
        code: py(
          "import os, time",
          "from hermes_tools import write_file",
          `write_file(${JSON.stringify(pidFile)}, str(os.getpid()))`,
          "time.sleep(60)",
        ),
      },
      abort.signal,
    );
    while (!existsSync(pidFile) || readFileSync(pidFile, "utf8") === "")
      await new Promise((r) => setTimeout(r, 20));
    abort.abort();
    const r = await pending;
    expect(r.status).toBe("interrupted");
    expect(r.error).toBe("[execution interrupted — user sent a new message]");
    expect(r.tool_calls_made).toBe(1);
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("rejects an unknown language and empty code", async () => {
    h = await createCodeExecHarness();
    // The schema's enum catches the language before the script is written.
    expect(await h.exec({ code: "print(1)", language: "ruby" })).toEqual({
      error: `Invalid arguments for execute_code: 'language' must be one of "python", "javascript", got "ruby".`,
    });
    expect((await h.exec({ code: "  " })).error).toMatch(/code is required/);
  });
});

describe("execute_code (JavaScript)", () => {
  it("runs an ES module with async stubs, positional or named arguments", async () => {
    h = await createCodeExecHarness();
    writeFileSync(join(h.root, "a.txt"), "one\ntwo\n");
    const r = await h.exec({
      language: "javascript",
      code: [
        'import { read_file, write_file, terminal } from "hermes_tools";',
        'const a = await read_file("a.txt");',
        'await write_file({ path: "b.txt", content: a.content.toUpperCase() });',
        'const t = await terminal({ command: "cat b.txt" });',
        "console.log(t.output.trim().split('\\n').length, process.env.OPENAI_API_KEY ?? 'no-key');",
      ].join("\n"),
    });
    expect(r.status).toBe("success");
    expect(r.output).toBe("2 no-key\n");
    expect(r.tool_calls_made).toBe(3);
    expect(readFileSync(join(h.root, "b.txt"), "utf8")).toMatch(/ONE/);
  });

  it("reports a JavaScript exception as status error", async () => {
    h = await createCodeExecHarness();
    const r = await h.exec({ language: "javascript", code: 'throw new Error("js boom");' });
    expect(r.status).toBe("error");
    expect(r.error).toMatch(/Error: js boom/);
  });
});

describe("execute_code schema", () => {
  it("lists only the script-callable tools of the session (their arguments are the tools' own)", async () => {
    h = await createCodeExecHarness();
    const [def] = (
      await h.registry.getDefinitions(["execute_code", "read_file", "terminal", "process"])
    ).filter((d) => d.function.name === "execute_code");
    const text = def!.function.description;
    expect(text).toContain("with the tools' arguments (JS: await; one args object): read_file, terminal.");
    expect(text).not.toContain("write_file");
    expect(text).not.toContain("process");
    expect(text).toContain("300 s, 50 calls");
    const alone = await h.registry.getDefinitions(["execute_code"]);
    expect(alone[0]!.function.description).toContain("none in this session");
  });

  it("writes three or more names that share a prefix once, in the order they come", () => {
    expect(
      compactNames([
        "web_search",
        "web_extract",
        "read_file",
        "browser_navigate",
        "browser_click",
        "terminal",
        "browser_back",
        "tool_search",
        "tool_describe",
        "tool_call",
      ]),
    ).toBe(
      "web_search, web_extract, read_file, browser_navigate/click/back, terminal, tool_search/describe/call",
    );
  });
});
