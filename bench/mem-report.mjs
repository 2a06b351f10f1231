// Preloaded into a measured process (NODE_OPTIONS=--import): at exit, writes its memory breakdown
// from /proc/self/smaps_rollup to $HERMES_BENCH_MEM_OUT. Shared_Clean is mostly the Node binary's
// own pages, shared by every node process on the machine.
import { readFileSync, writeFileSync } from "node:fs";

const out = process.env.HERMES_BENCH_MEM_OUT;
if (out) {
  process.on("exit", () => {
    try {
      const fields = Object.fromEntries(
        readFileSync("/proc/self/smaps_rollup", "utf8")
          .split("\n")
          .map((l) => /^(\w+):\s+(\d+) kB/.exec(l))
          .filter(Boolean)
          .map((m) => [m[1], Number(m[2]) / 1024]),
      );
      // Peak resident memory of this process alone (GNU time's figure can be a child's).
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
      if (hwm) fields.VmHWM = Number(hwm[1]) / 1024;
      writeFileSync(out, JSON.stringify(fields));
    } catch {
      // not Linux: no breakdown
    }
  });
}
