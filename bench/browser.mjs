// Browser tools on three real-world-sized pages (test/fixtures/browser: a news article, a docs page,
// a web app's settings form) served on loopback: snapshot bytes against the page's HTML bytes, and
// how long Chromium takes to start (the first browser_navigate of a run) and to open a page once it
// runs. Figures only, no pass/fail. Run after a build (imports dist/); needs Chromium on PATH.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../dist/core/config.js";
import { registerBrowserTools } from "../dist/tools/builtin/browser/index.js";
import { launchChromium } from "../dist/tools/builtin/browser/launch.js";
import { BrowserManager } from "../dist/tools/builtin/browser/manager.js";
import { DEFAULT_BROWSER_SETTINGS, findChromium } from "../dist/tools/builtin/browser/settings.js";
import { createLocalEnvironmentProvider } from "../dist/tools/environments/local.js";
import { ToolRegistry } from "../dist/tools/registry.js";
import { fmt, median, ROOT } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const chromium = findChromium("");
if (!chromium) {
  console.log("browser: skipped (no Chromium on PATH; apt-get install chromium)");
  process.exit(0);
}

const PAGES = [
  ["news article", "news-article.html"],
  ["docs page", "docs-page.html"],
  ["web app form", "web-app-form.html"],
];
const fixtures = new Map(
  PAGES.map(([, f]) => [`/${f}`, readFileSync(join(ROOT, "test/fixtures/browser", f))]),
);
const server = createServer((req, res) => {
  const body = fixtures.get(req.url ?? "");
  if (!body) {
    // Images, scripts and styles the pages name: answered empty, as a cache would.
    res.writeHead(204);
    return res.end();
  }
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(body);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const work = mkdtempSync(join(tmpdir(), "hermes-bench-browser-"));
const config = structuredClone(DEFAULT_CONFIG);
config.security.allow_private_urls = true;
const provider = createLocalEnvironmentProvider({ cwd: work, maxOutputBytes: 100_000 });
const ctx = {
  taskId: "bench",
  sessionId: "bench",
  signal: new AbortController().signal,
  config,
  home: work,
  env: provider.get("bench"),
  platform: "cli",
};

/** A registry with the browser tools on a fresh manager (default settings). */
function tools() {
  const manager = new BrowserManager({ settings: DEFAULT_BROWSER_SETTINGS });
  const registry = new ToolRegistry();
  registerBrowserTools(registry, { manager });
  const call = async (name, args) => JSON.parse(await registry.dispatch(name, args, ctx));
  return { manager, call };
}

const timed = async (fn) => {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
};

// Sizes: what the model reads against what the page weighs (snapshots taken uncut, from the session).
const sizes = tools();
console.log("browser snapshot size against the page's HTML (bytes)");
console.log(
  `  ${"page".padEnd(14)} ${"HTML".padStart(9)} ${"compact".padStart(9)} ${"full".padStart(9)}  HTML/compact  HTML/full  refs  sent by default`,
);
for (const [label, file] of PAGES) {
  const html = fixtures.get(`/${file}`).length;
  const sent = await sizes.call("browser_navigate", { url: `${base}/${file}` });
  if (!sent.success) throw new Error(`navigate failed: ${JSON.stringify(sent)}`);
  const session = sizes.manager.existing(ctx.taskId);
  const compact = await session.snapshot(false);
  const full = await session.snapshot(true);
  const c = Buffer.byteLength(compact.text);
  const f = Buffer.byteLength(full.text);
  console.log(
    `  ${label.padEnd(14)} ${String(html).padStart(9)} ${String(c).padStart(9)} ${String(f).padStart(9)}  ${fmt(html / c).padStart(11)}x ${fmt(html / f).padStart(9)}x ${String(compact.refs).padStart(5)}  ${Buffer.byteLength(sent.snapshot)}${sent.truncated ? " (cut)" : ""}`,
  );
}
await sizes.manager.closeAll();

// Cold start: Chromium's launch alone, and the first browser_navigate of a run (launch, context, page, snapshot).
const launches = [];
const firsts = [];
for (let i = 0; i < RUNS; i++) {
  const launched = await timed(() => launchChromium({ executablePath: chromium }));
  launches.push(launched.ms);
  await launched.value.close();
  const t = tools();
  firsts.push((await timed(() => t.call("browser_navigate", { url: `${base}/docs-page.html` }))).ms);
  await t.manager.closeAll();
}
console.log(`\nbrowser start (median of ${RUNS}, ${chromium})`);
console.log(
  `  Chromium launch ${fmt(median(launches), 0)} ms   first browser_navigate (docs page) ${fmt(median(firsts), 0)} ms`,
);

// Warm: the browser runs; open each page again, and snapshot it again.
const warm = tools();
await warm.call("browser_navigate", { url: `${base}/docs-page.html` });
console.log(`\nwarm browser (median of ${RUNS})`);
for (const [label, file] of PAGES) {
  const navs = [];
  const snaps = [];
  for (let i = 0; i < RUNS; i++) {
    navs.push((await timed(() => warm.call("browser_navigate", { url: `${base}/${file}` }))).ms);
    snaps.push((await timed(() => warm.call("browser_snapshot", {}))).ms);
  }
  console.log(
    `  ${label.padEnd(14)} browser_navigate ${fmt(median(navs), 0).padStart(5)} ms   browser_snapshot ${fmt(median(snaps), 0).padStart(5)} ms`,
  );
}
await warm.manager.closeAll();
await provider.disposeAll();
server.close();
rmSync(work, { recursive: true, force: true });
