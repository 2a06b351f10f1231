// Preloaded into a benchmarked long-running process (NODE_OPTIONS="--import bench/heap-probe.mjs")
// with HERMES_BENCH_HEAP_DIR set: on SIGUSR2 it collects all garbage and appends "<tag> <live heap
// bytes>" to <dir>/heap.txt, the tag read from <dir>/request. RSS alone cannot tell a leak from a
// heap V8 has grown and keeps; the live heap after a full collection can.
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import v8 from "node:v8";
import vm from "node:vm";

const dir = process.env.HERMES_BENCH_HEAP_DIR;
if (dir) {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  process.on("SIGUSR2", () => {
    let tag = "?";
    try {
      tag = readFileSync(join(dir, "request"), "utf8").trim();
    } catch {}
    gc();
    appendFileSync(join(dir, "heap.txt"), `${tag} ${process.memoryUsage().heapUsed}\n`);
  });
}
