/**
 * The web tools through the real binary (its bundle loads linkedom, Readability, Turndown and the
 * PDF reader as split chunks) against the fake LLM server, reading pages from a loopback server.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox } from "../../support/cli.js";
import { openaiConfig, toolMessagesOf, useFakeLlm } from "../../support/e2e.js";
import type { FakeLlm } from "../../support/fake-llm.js";
import { makePdf } from "./pdf-fixture.js";
import { startServer, type TestServer } from "./support.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

let pagesServer: TestServer;
beforeAll(async () => {
  const article = readFileSync(join(import.meta.dirname, "../../fixtures/web/article.html"));
  pagesServer = await startServer((req, res) => {
    if (req.url === "/report.pdf") {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.end(makePdf([["Quarterly tide tables"]], "Tide tables"));
      return;
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end(article);
  });
});
afterAll(async () => {
  await pagesServer.close();
});

async function runExtract(extraConfig: string, urls: string[]) {
  fake.enqueue({ toolCalls: [{ name: "web_extract", arguments: { urls } }] }, { text: "Read it." });
  const box = sandbox(openaiConfig(fake, extraConfig));
  const env = cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key" });
  const r = await runHermes(["-z", "read these pages"], { env, cwd: box.work });
  expect(r.stderr).toBe("");
  expect(r.stdout).toBe("Read it.\n");
  const [message] = toolMessagesOf(fake.requests[1]!);
  return JSON.parse(String(message?.content)) as { results: Array<Record<string, unknown>> };
}

describe("web_extract in the hermes binary", () => {
  it("returns the article and a PDF's text when private URLs are allowed", async () => {
    const out = await runExtract("security:\n  allow_private_urls: true\n", [
      `${pagesServer.origin}/story`,
      `${pagesServer.origin}/report.pdf`,
    ]);
    expect(out.results[0]?.content).toContain("The turbines off Ramsey Sound");
    expect(out.results[0]?.content).not.toContain("MEGA SALE");
    expect(out.results[1]).toMatchObject({ type: "pdf", content: "Quarterly tide tables" });
  });

  it("refuses the loopback server under the default config", async () => {
    const before = pagesServer.requests.length;
    const out = await runExtract("", [`${pagesServer.origin}/story`]);
    expect(out.results[0]?.error).toContain("loopback address; refused");
    expect(pagesServer.requests.length).toBe(before);
  });
});
