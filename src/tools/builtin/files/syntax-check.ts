import { spawn } from "node:child_process";
import { basename, extname } from "node:path";
import { parseAllDocuments } from "yaml";
import { findExecutable } from "../../environments/shell-state.js";

/**
 * Syntax checks after write_file and patch: JSON (JSON.parse), YAML (the yaml package), JavaScript
 * and TypeScript (a short-lived `node` child: vm parsing for JS, node's own type stripper for TS,
 * so no compiler is loaded into the agent and its memory stays flat) and Python (`python3`
 * compile() on stdin, so no __pycache__ is written). Content is checked from memory, whatever the
 * backend. Only errors the edit introduced are reported; checks never block or undo a write.
 */

export interface SyntaxIssue {
  line?: number;
  column?: number;
  message: string;
}

type Language = "json" | "yaml" | "js" | "ts" | "python";

/** Larger files are not checked (the check would cost more than it tells). */
export const MAX_CHECK_BYTES = 1_000_000;
const CHECK_TIMEOUT_MS = 10_000;

const EXTENSIONS: Readonly<Record<string, Language>> = {
  ".json": "json",
  ".yaml": "yaml",
  ".yml": "yaml",
  ".js": "js",
  ".mjs": "js",
  ".cjs": "js",
  ".ts": "ts",
  ".mts": "ts",
  ".cts": "ts",
  ".py": "python",
};

/** JSON files that allow comments and trailing commas (JSONC). */
const JSONC =
  /^(?:[tj]sconfig.*\.json|\.?devcontainer\.json|\.eslintrc\.json|settings\.json|launch\.json|tasks\.json)$/;

export function languageOf(path: string): Language | undefined {
  const lang = EXTENSIONS[extname(path).toLowerCase()];
  if (lang === "json" && JSONC.test(basename(path))) return undefined;
  return lang;
}

function lineCol(text: string, pos: number): { line: number; column: number } {
  const before = text.slice(0, pos);
  const line = before.split("\n").length;
  return { line, column: pos - before.lastIndexOf("\n") };
}

/**
 * Offset of the first character where `text` stops being JSON. JSON.parse's messages do not always
 * carry a position (V8 quotes a snippet instead), so a small scanner finds it.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const str = (): void => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "x")) fail();
      }
      i++;
    }
    if (text[i] !== '"') fail();
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        str();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return;
        } else fail();
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return;
        } else fail();
      }
    }
    if (c === '"') {
      str();
      return;
    }
    const lit = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
      text.slice(i, i + 400),
    );
    if (!lit) fail();
    i += lit![0].length;
  };
  try {
    value();
    ws();
    return i < text.length ? i : -1;
  } catch (at) {
    return typeof at === "number" ? Math.min(at, text.length) : -1;
  }
}

function checkJson(text: string): SyntaxIssue[] {
  if (text.trim() === "") return [];
  try {
    JSON.parse(text);
    return [];
  } catch (err) {
    // "Unexpected token '}', \"{...}\" is not valid JSON" / "... in JSON at position 9 (line 1 column 10)"
    const message = (err as Error).message
      .replace(/, ".*" is not valid JSON$/s, "")
      .replace(/\s*(?:in JSON )?at position \d+.*$/s, "");
    const offset = jsonErrorOffset(text);
    return [{ ...(offset >= 0 ? lineCol(text, offset) : {}), message }];
  }
}

function checkYaml(text: string): SyntaxIssue[] {
  const issues: SyntaxIssue[] = [];
  for (const doc of parseAllDocuments(text, { prettyErrors: true })) {
    for (const e of doc.errors) {
      const at = e.linePos?.[0];
      const message = e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
      issues.push({ ...(at ? { line: at.line, column: at.col } : {}), message });
    }
  }
  return issues;
}

/** Runs in a child `node`: strips TypeScript types from stdin (parsing it) and prints the issues. */
const TS_CHECKER = `
let src = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => { src += d; });
process.stdin.on("end", () => {
  const issues = [];
  try {
    require("node:module").stripTypeScriptTypes(src, { mode: "transform" });
  } catch (e) {
    const lines = String(e && e.stack).split("\\n");
    const at = /:(\\d+)$/.exec(lines[0] || "");
    const caret = lines.findIndex((l, i) => i > 0 && /^\\s*\\^+\\s*$/.test(l));
    const issue = { message: String(e && e.message) };
    if (at) issue.line = Number(at[1]);
    if (caret > 0) issue.column = lines[caret].indexOf("^") + 1;
    issues.push(issue);
  }
  process.stdout.write(JSON.stringify(issues));
});
`;

const PYTHON_CHECKER = `
import json, sys
src = sys.stdin.buffer.read()
try:
    compile(src, sys.argv[1], "exec", dont_inherit=True)
    out = []
except SyntaxError as e:
    out = [{"line": e.lineno, "column": e.offset, "message": e.msg}]
except Exception as e:
    out = [{"message": str(e)}]
sys.stdout.write(json.dumps([{k: v for k, v in i.items() if v is not None} for i in out]))
`;

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a checker with `text` on stdin; undefined when it could not run or timed out. */
function runChecker(cmd: string, args: string[], text: string): Promise<Finished | undefined> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    const done = (v: Finished | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(v);
    };
    const child = spawn(cmd, args, {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "", PYTHONDONTWRITEBYTECODE: "1" },
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done(undefined);
    }, CHECK_TIMEOUT_MS);
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", () => done(undefined));
    child.on("close", (code) => done({ code, stdout, stderr }));
    child.stdin.on("error", () => undefined);
    child.stdin.end(text);
  });
}

const jsonIssues = (f: Finished | undefined): SyntaxIssue[] | undefined => {
  try {
    const parsed: unknown = JSON.parse(f?.stdout ?? "");
    return Array.isArray(parsed) ? (parsed as SyntaxIssue[]) : undefined;
  } catch {
    return undefined;
  }
};

/** Reads `node --check` output: "[stdin]:LINE", the code line, a caret line, "SyntaxError: ...". */
function nodeCheckIssues(f: Finished | undefined): SyntaxIssue[] | undefined {
  if (!f) return undefined;
  if (f.code === 0) return [];
  const lines = f.stderr.split("\n");
  const error = lines.find((l) => /^\w*Error: /.test(l));
  if (!error) return undefined;
  const at = lines.findIndex((l) => /^\[stdin\]:\d+$/.test(l));
  const issue: SyntaxIssue = { message: error.replace(/^\w*Error: /, "") };
  if (at >= 0) {
    issue.line = Number(lines[at]!.slice("[stdin]:".length));
    const caret = lines.slice(at + 1, at + 4).find((l) => /^\s*\^+\s*$/.test(l));
    if (caret) issue.column = caret.indexOf("^") + 1;
  }
  return [issue];
}

/** ES module syntax at the start of a line (import/export declarations, import.meta). */
const MODULE_SYNTAX = /^\s*(?:import\s*[\w{*"'`]|import\.meta|export\s)/m;

/** Syntax problems of `text` as a file named `path`; undefined when the language is not checked here. */
export async function checkSyntax(path: string, text: string): Promise<SyntaxIssue[] | undefined> {
  const lang = languageOf(path);
  if (!lang || Buffer.byteLength(text) > MAX_CHECK_BYTES) return undefined;
  switch (lang) {
    case "json":
      return checkJson(text);
    case "yaml":
      return checkYaml(text);
    case "js": {
      const ext = extname(path).toLowerCase();
      const type = ext === ".mjs" || (ext === ".js" && MODULE_SYNTAX.test(text)) ? "module" : "commonjs";
      const code = text.replace(/^#!.*/, "");
      return nodeCheckIssues(
        await runChecker(process.execPath, ["--no-warnings", `--input-type=${type}`, "--check"], code),
      );
    }
    case "ts":
      return jsonIssues(await runChecker(process.execPath, ["--no-warnings", "-e", TS_CHECKER], text));
    case "python": {
      const python = await pythonInterpreter();
      return python
        ? jsonIssues(await runChecker(python, ["-I", "-S", "-c", PYTHON_CHECKER, basename(path)], text))
        : undefined;
    }
  }
}

let python: Promise<string | undefined> | undefined;

/**
 * The real python3 binary, resolved once per process: version-manager shims (pyenv, asdf) are
 * shell scripts that cost ~80 ms per start, which would otherwise be paid on every .py write.
 */
function pythonInterpreter(): Promise<string | undefined> {
  python ??= (async () => {
    const shim = findExecutable("python3");
    if (!shim) return undefined;
    const out = await runChecker(shim, ["-I", "-S", "-c", "import sys; print(sys.executable)"], "");
    const real = out?.code === 0 ? out.stdout.trim() : "";
    return real || shim;
  })();
  return python;
}

const describe = (i: SyntaxIssue): string =>
  i.line !== undefined
    ? `line ${i.line}${i.column !== undefined ? `, column ${i.column}` : ""}: ${i.message}`
    : i.message;

/**
 * Errors in `after` that `before` did not have (compared by message, since lines move), as
 * "line L, column C: message" strings. `before` undefined means a new file. Never throws.
 */
export async function newSyntaxWarnings(
  path: string,
  before: string | undefined,
  after: string,
): Promise<string[]> {
  try {
    const now = await checkSyntax(path, after);
    if (!now || now.length === 0) return [];
    const was = before === undefined || before === "" ? [] : ((await checkSyntax(path, before)) ?? []);
    const old = new Map<string, number>();
    for (const i of was) old.set(i.message, (old.get(i.message) ?? 0) + 1);
    const fresh: SyntaxIssue[] = [];
    for (const i of now) {
      const n = old.get(i.message) ?? 0;
      if (n > 0) old.set(i.message, n - 1);
      else fresh.push(i);
    }
    return fresh.map(describe);
  } catch {
    return [];
  }
}
