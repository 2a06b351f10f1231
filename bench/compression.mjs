// Context compression bench: the pruning pass over a ~1,000,000-token history, tokens saved by
// pruning alone on a realistic coding transcript, and the runtime estimator's error against a real
// tokenizer (cl100k_base via js-tiktoken, a dev dependency). Figures only, no pass/fail.
// Run after a build (imports dist/).
import { getEncoding } from "js-tiktoken";

const { pruneMessages } = await import("../dist/agent/compression/prune.js");
const { findBoundaries } = await import("../dist/agent/compression/boundaries.js");
const { TokenEstimator, estimateMessagesTokens, estimateMessageTokens, estimateTextTokens } = await import(
  "../dist/agent/compression/estimate.js"
);

let seed = 7;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

const codeLine = (i) =>
  pick([
    `  const result${i} = await fetchData(config.endpoint, { retries: ${i % 5} });`,
    `export function handle${i}(req: Request): Response {`,
    `    if (!user?.id) throw new Error("missing user ${i}");`,
    `  return items.filter((x) => x.score > ${i}).map((x) => x.name);`,
    `// TODO(${i}): remove the legacy path once clients upgrade`,
    `}`,
  ]);
const prose = () =>
  pick([
    "Let me look at the failing test first and then check how the config is loaded.",
    "The error comes from the retry helper: it swallows the abort signal.",
    "I updated the handler and the tests pass now. Next I will clean up the imports.",
    "Please also make sure the CLI prints a clear message when the file is missing.",
  ]);

/** A coding-agent transcript: user asks, assistant calls tools (read/search/terminal), results are big. */
function transcript(targetTokens) {
  const msgs = [{ role: "system", content: "You are a coding agent.\n".repeat(200) }];
  let tokens = 0;
  let id = 0;
  let turn = 0;
  while (tokens < targetTokens) {
    msgs.push({ role: "user", content: `${prose()} (step ${turn++})` });
    const calls = 1 + Math.floor(rand() * 4);
    for (let k = 0; k < calls; k++) {
      const callId = `call_${id++}`;
      const kind = pick(["read_file", "terminal", "search_files", "read_file"]);
      const args =
        kind === "terminal"
          ? { command: pick(["npm test", "git diff", "ls -la src", "cat package.json"]) }
          : kind === "search_files"
            ? { pattern: pick(["retry", "abort", "config"]), path: "src" }
            : { path: `src/module${Math.floor(rand() * 40)}.ts` };
      msgs.push({
        role: "assistant",
        content: rand() < 0.3 ? prose() : null,
        tool_calls: [
          { id: callId, type: "function", function: { name: kind, arguments: JSON.stringify(args) } },
        ],
      });
      const lines = 20 + Math.floor(rand() * 200);
      const body = Array.from({ length: lines }, (_, i) => codeLine(i)).join("\n");
      const content = kind === "terminal" ? JSON.stringify({ output: body, exit_code: 0 }) : body;
      msgs.push({ role: "tool", tool_call_id: callId, name: kind, content });
      tokens += estimateTextTokens(content) + 30;
    }
    msgs.push({ role: "assistant", content: prose() });
  }
  return msgs;
}

// 1. Pruning pass over a ~1M-token history (boundaries + prune, as compress() runs them).
const big = transcript(1_000_000);
const bigTokens = estimateMessagesTokens(big);
const runs = [];
for (let r = 0; r < 5; r++) {
  const t0 = performance.now();
  const cost = big.map((m) => estimateMessageTokens(m));
  const { start, end } = findBoundaries(big, 3, 20_000, (i) => cost[i]);
  pruneMessages(big, start, end);
  runs.push(performance.now() - t0);
}
runs.sort((a, b) => a - b);
console.log(
  `compression: pruning pass over ${big.length.toLocaleString("en-US")} messages (~${bigTokens.toLocaleString("en-US")} est. tokens): median ${runs[2].toFixed(1)} ms, best ${runs[0].toFixed(1)} ms (target < 100 ms)`,
);

// 2. Tokens saved by pruning alone on a realistic transcript (~100k tokens, 20k-token tail).
const enc = getEncoding("cl100k_base");
const countMsgs = (msgs) => {
  let n = 3;
  for (const m of msgs) {
    n += 3;
    for (const [k, v] of Object.entries(m)) {
      if (v === null || v === undefined || k === "role") continue;
      n += enc.encode(typeof v === "string" ? v : JSON.stringify(v)).length;
    }
  }
  return n;
};
const real = transcript(100_000);
const cost = real.map((m) => estimateMessageTokens(m));
const { start, end } = findBoundaries(real, 3, 20_000, (i) => cost[i]);
const before = countMsgs(real);
const after = countMsgs(pruneMessages(real, start, end).messages);
console.log(
  `compression: pruning alone on a ${before.toLocaleString("en-US")}-token coding transcript saves ${(((before - after) / before) * 100).toFixed(1)}% (${(before - after).toLocaleString("en-US")} tokens, cl100k count)`,
);

// 3. Estimator error vs cl100k on single messages of each kind.
const samples = real.slice(0, 400);
const errors = samples.map((m) => {
  const t = countMsgs([m]);
  return Math.abs(estimateMessagesTokens([m]) - t) / t;
});
const mean = errors.reduce((a, b) => a + b, 0) / errors.length;
const wholeErr = (estimateMessagesTokens(real) - before) / before;
console.log(
  `compression: estimator vs cl100k per message: mean ${(mean * 100).toFixed(1)}%, max ${(Math.max(...errors) * 100).toFixed(1)}% (${samples.length} messages); whole transcript ${(wholeErr * 100).toFixed(1)}%`,
);

// 4. The runtime corrects the estimate with the provider's count of each earlier request: calibrate
// on requests covering the first quarter, half and three quarters, then estimate the whole.
const estimator = new TokenEstimator();
for (const share of [0.25, 0.5, 0.75]) {
  const prefix = real.slice(0, Math.floor(real.length * share));
  estimator.calibrate(estimator.raw(prefix), countMsgs(prefix));
}
const calibratedErr = (estimator.messages(real) - before) / before;
console.log(
  `compression: estimator after calibration from three earlier requests' counts: whole transcript ${(calibratedErr * 100).toFixed(1)}% (correction factor ${estimator.correction.toFixed(3)})`,
);
