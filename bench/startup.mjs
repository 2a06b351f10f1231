// `hermes --version` and `--help` against bare `node -e 0`: median wall time and peak RSS, with ratios.
import { BIN, fmt, median, repeat, runOnce } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const node = process.execPath;

async function measure(label, argv) {
  await runOnce(argv); // warm the page cache and the compile cache
  const rs = await repeat(RUNS, () => runOnce(argv));
  if (rs.some((r) => r.code !== 0)) throw new Error(`${label} failed`);
  return { label, ms: median(rs.map((r) => r.ms)), rss: median(rs.map((r) => r.rssMb)) };
}

const base = await measure("node -e 0", [node, "-e", "0"]);
const version = await measure("hermes --version", [node, BIN, "--version"]);
const help = await measure("hermes --help", [node, BIN, "--help"]);
console.log(`startup (median of ${RUNS} runs)`);
for (const m of [base, version, help]) {
  console.log(
    `  ${m.label.padEnd(18)} ${fmt(m.ms)} ms  ${fmt(m.rss)} MB   wall ×${fmt(m.ms / base.ms, 2)}  rss ×${fmt(m.rss / base.rss, 2)} vs node -e 0`,
  );
}
