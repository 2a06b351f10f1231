// Commands per second through the `terminal` tool: the local backend (persistent cwd/env, process
// group per command) against a bare `spawn('bash', ['-c', cmd])`, and the ssh backend against a
// private loopback sshd (when openssh-server is installed) against plain `ssh` over the same kind of
// master connection. Sequential commands; prints figures, no pass/fail. Needs `npm run build`.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../dist/core/config.js";
import { registerBuiltinTools } from "../dist/tools/builtin/index.js";
import { createLocalEnvironmentProvider } from "../dist/tools/environments/local.js";
import { createSshProvider, SshConnection } from "../dist/tools/environments/ssh.js";
import { ToolRegistry } from "../dist/tools/registry.js";
import { startPrivateSshd } from "../test/tools/environments/sshd.ts";
import { fmt } from "./lib.mjs";

const N = Number(process.env.BENCH_COMMANDS ?? 200);
const N_SSH = Number(process.env.BENCH_SSH_COMMANDS ?? 50);
const COMMAND = "echo hi";
const dir = mkdtempSync(join(tmpdir(), "hermes-bench-terminal-"));

function waitClose(child) {
  return new Promise((resolve) => child.once("close", resolve));
}

/** Runs `fn` n times in sequence; resolves to commands per second. */
async function rate(n, fn) {
  await fn(); // warm-up: first spawn, first connection
  const started = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return (n * 1000) / (performance.now() - started);
}

const registry = new ToolRegistry();
registerBuiltinTools(registry);
const config = structuredClone(DEFAULT_CONFIG);
const ctxFor = (env) => ({
  taskId: "bench",
  sessionId: "bench",
  signal: new AbortController().signal,
  config,
  home: join(dir, "home"),
  env,
  platform: "cli",
});
async function viaTool(ctx, command) {
  const out = JSON.parse(await registry.dispatch("terminal", { command }, ctx));
  if (out.exit_code !== 0) throw new Error(`command failed: ${JSON.stringify(out)}`);
}

const rows = [];
const baseline = await rate(N, () =>
  waitClose(spawn("bash", ["-c", COMMAND], { stdio: ["ignore", "pipe", "pipe"] })),
);
rows.push(["spawn('bash', ['-c', cmd]), no state", baseline, N]);

const local = createLocalEnvironmentProvider({ cwd: dir, home: dir });
const localCtx = ctxFor(local.get("bench"));
const tool = await rate(N, () => viaTool(localCtx, COMMAND));
rows.push(["terminal tool, local backend", tool, N]);
const stateful = await rate(N, (i) => viaTool(localCtx, `export N=${i}; cd ${dir}`));
rows.push(["  ... with cd + export each time", stateful, N]);
await local.disposeAll();

const sshd = await startPrivateSshd();
let sshNote = "";
if (typeof sshd === "string") {
  sshNote = `ssh: skipped (${sshd})`;
} else {
  const connection = new SshConnection(sshd.settings);
  await connection.connect();
  const plain = await rate(N_SSH, () => {
    const child = connection.spawn(COMMAND);
    child.stdin.end();
    return waitClose(child);
  });
  rows.push(["plain ssh over a master connection", plain, N_SSH]);
  await connection.close();
  const provider = createSshProvider(sshd.settings, { cwd: dir });
  const sshCtx = ctxFor(provider.get("bench"));
  const viaSsh = await rate(N_SSH, () => viaTool(sshCtx, COMMAND));
  rows.push(["terminal tool, ssh backend (loopback)", viaSsh, N_SSH]);
  await provider.disposeAll();
  await sshd.stop();
}

console.log(`terminal throughput, sequential "${COMMAND}" commands (Node ${process.version})`);
for (const [label, perSecond, n] of rows) {
  const ratio = perSecond / baseline;
  console.log(
    `  ${label.padEnd(40)} ${fmt(perSecond).padStart(7)} cmd/s  ${fmt(1000 / perSecond, 2).padStart(7)} ms each  x${fmt(ratio, 2)} of bare spawn  (n=${n})`,
  );
}
console.log(
  sshNote
    ? `  ${sshNote}`
    : "  (each ssh command also pays the remote login shell's start-up, e.g. its ~/.bashrc)",
);
rmSync(dir, { recursive: true, force: true });
