import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { delimiter, join } from "node:path";
import type { SshSettings } from "../../../src/tools/environments/ssh.js";

/**
 * A private OpenSSH server for tests: loopback only, a fresh host key, a fresh client key and an
 * AuthorizedKeysFile in a temp dir, running as the current user. Nothing of the machine's own ssh
 * setup is read or changed (known hosts go to the temp dir as well).
 */

export interface PrivateSshd {
  dir: string;
  port: number;
  user: string;
  /** Settings that log in to this server with the generated key. */
  settings: SshSettings;
  stop(): Promise<void>;
}

const SSHD_PATHS = ["/usr/sbin/sshd", "/usr/local/sbin/sshd"];

/** An executable on PATH (kept free of project imports so bench/terminal.mjs can load this file too). */
function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Starts the server, or returns why it cannot (the caller skips its tests with that reason). */
export async function startPrivateSshd(): Promise<PrivateSshd | string> {
  const sshd = SSHD_PATHS.find((p) => existsSync(p)) ?? which("sshd");
  if (!sshd) return "no sshd: install openssh-server (apt-get install openssh-server) to run the ssh tests";
  const keygen = which("ssh-keygen");
  if (!keygen || !which("ssh")) return "no ssh client or ssh-keygen on PATH";
  if (process.getuid?.() === 0 && !existsSync("/run/sshd")) {
    // sshd insists on its privilege-separation directory when started as root.
    try {
      mkdirSync("/run/sshd", { mode: 0o755 });
    } catch (err) {
      return `cannot create /run/sshd for sshd: ${(err as Error).message}`;
    }
  }
  const dir = await realpath(await mkdtemp(join(tmpdir(), "hermes-sshd-")));
  for (const name of ["host_key", "client_key"]) {
    execFileSync(keygen, ["-q", "-t", "ed25519", "-N", "", "-C", "hermes-test", "-f", join(dir, name)]);
  }
  execFileSync("cp", [join(dir, "client_key.pub"), join(dir, "authorized_keys")]);
  const port = await freePort();
  const user = userInfo().username;
  await writeFile(
    join(dir, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host_key")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "PermitRootLogin prohibit-password",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "StrictModes no",
      "UsePAM no",
      "PrintMotd no",
      "MaxSessions 64",
      "MaxStartups 64",
      "",
    ].join("\n"),
  );
  let stderr = "";
  const server: ChildProcess = spawn(sshd, ["-D", "-e", "-f", join(dir, "sshd_config")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  server.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  let exited = false;
  server.once("exit", () => {
    exited = true;
  });
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (exited || Date.now() > deadline) {
      server.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
      return `sshd did not start: ${stderr.trim() || "no output"}`;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    dir,
    port,
    user,
    settings: {
      host: "127.0.0.1",
      user,
      port,
      key: join(dir, "client_key"),
      connectTimeoutS: 5,
      options: [`UserKnownHostsFile=${join(dir, "known_hosts")}`],
    },
    async stop() {
      server.kill("SIGTERM");
      if (!exited) await new Promise((r) => server.once("exit", r));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
