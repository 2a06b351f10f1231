import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const FILE_LOCK = fileURLToPath(new URL("../../src/core/file-lock.ts", import.meta.url));

/** Another process holding a Hermes lock file; `release()` makes it let go and exit. */
export interface LockHolder {
  release(): Promise<void>;
  /**
   * Sets a timer that notes "timer" in `order` and then releases the lock. Called right after the
   * operation under test started: "timer" comes first only if that operation left the event loop free.
   */
  releaseFromTimer(order: string[]): void;
}

/**
 * Starts a second Node process that takes `lock` through core/file-lock.ts (as another Hermes
 * process would) and holds it until released. Resolves once the lock is held.
 */
export async function holdLockInAnotherProcess(lock: string): Promise<LockHolder> {
  const script = `
    const { lockFileSync } = await import(${JSON.stringify(FILE_LOCK)});
    const release = lockFileSync(${JSON.stringify(lock)});
    process.stdout.write("held\\n");
    process.stdin.once("data", () => { release(); process.exit(0); });
  `;
  const child: ChildProcess = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("held")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
  const release = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = once(child, "exit");
    child.stdin!.write("go\n");
    await exited;
  };
  return {
    release,
    releaseFromTimer: (order) => {
      setTimeout(() => {
        order.push("timer");
        void release();
      }, 0);
    },
  };
}
