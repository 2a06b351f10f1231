import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, type Sandbox, sandbox } from "../support/cli.js";
import { FILESYSTEM, FIXTURE } from "./support.js";

const env = (box: Sandbox) => cleanEnv({ HERMES_HOME: box.home });
const hermes = (box: Sandbox, ...args: string[]) => runHermes(args, { env: env(box), cwd: box.work });

const CONFIG = "# my settings\nmodel:\n  default: some/model # the one I like\n\ntoolsets:\n  - hermes-cli\n";

describe("hermes mcp add | list | remove", () => {
  it("adds servers to config.yaml, keeping the rest of the file as written", async () => {
    const box = sandbox(CONFIG);
    const added = await hermes(
      box,
      "mcp",
      "add",
      "files",
      "--env",
      `ROOT_TOKEN=\${FILES_TOKEN}`,
      "--",
      "npx",
      "-y",
      "some-server",
      "/tmp",
    );
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("Added MCP server 'files' (npx -y some-server /tmp)");
    const web = await hermes(
      box,
      "mcp",
      "add",
      "web",
      "--url",
      "https://example.com/mcp",
      "--header",
      `Authorization: Bearer \${TOKEN}`,
      "--timeout",
      "30",
      "--include",
      "search,fetch",
    );
    expect(web.code).toBe(0);
    const text = readFileSync(join(box.home, "config.yaml"), "utf8");
    expect(
      text.startsWith(
        "# my settings\nmodel:\n  default: some/model # the one I like\n\ntoolsets:\n  - hermes-cli\n",
      ),
    ).toBe(true);
    expect(text).toContain(
      `mcp_servers:\n  files:\n    command: npx\n    args:\n      - -y\n      - some-server\n      - /tmp\n    env:\n      ROOT_TOKEN: \${FILES_TOKEN}\n`,
    );
    expect(text).toContain(
      `  web:\n    url: https://example.com/mcp\n    headers:\n      Authorization: Bearer \${TOKEN}\n    timeout: 30\n    tools:\n      include:\n        - search\n        - fetch\n`,
    );

    const list = await hermes(box, "mcp", "list");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^files\s+stdio\s+yes\s+npx -y some-server \/tmp\s+\[env: ROOT_TOKEN\]$/m);
    expect(list.stdout).toMatch(
      /^web\s+http\s+yes\s+https:\/\/example.com\/mcp \(http\)\s+\[headers: Authorization; include: search, fetch\]$/m,
    );
    const json = JSON.parse((await hermes(box, "mcp", "list", "--json")).stdout);
    expect(json.servers.map((s: { name: string }) => s.name)).toEqual(["files", "web"]);

    const removed = await hermes(box, "mcp", "remove", "files");
    expect(removed.code).toBe(0);
    const after = readFileSync(join(box.home, "config.yaml"), "utf8");
    expect(after).not.toContain("files:");
    expect(after).toContain("  web:\n");
    expect(after.startsWith("# my settings\n")).toBe(true);
  });

  it("refuses duplicates, bad names and incomplete entries, and says so", async () => {
    const box = sandbox(CONFIG);
    expect((await hermes(box, "mcp", "add", "a", "--", "node", "x.js")).code).toBe(0);
    const dup = await hermes(box, "mcp", "add", "a", "--", "node", "y.js");
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("an MCP server named 'a' exists already");
    expect((await hermes(box, "mcp", "add", "a", "--force", "--", "node", "y.js")).code).toBe(0);
    expect(readFileSync(join(box.home, "config.yaml"), "utf8")).toContain("- y.js");
    const badName = await hermes(box, "mcp", "add", "my.server", "--", "node");
    expect(badName.code).toBe(2);
    const nothing = await hermes(box, "mcp", "add", "empty");
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("give the server's command");
    const missing = await hermes(box, "mcp", "remove", "ghost");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no MCP server named 'ghost'");
  });
});

describe("hermes mcp test", () => {
  it("connects and lists every tool with the bytes and tokens its schema costs", async () => {
    const box = sandbox(CONFIG);
    await hermes(box, "mcp", "add", "fs", "--", process.execPath, FILESYSTEM, box.work);
    const r = await hermes(box, "mcp", "test", "fs");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Connected to MCP server 'fs' \(stdio\) in \d+ ms: \d+ tools\.$/m);
    expect(r.stdout).toMatch(/^mcp_fs_read_text_file\s+\d+\s+\d+$/m);
    const [, bytes, tokens] = /^total\s+(\d+)\s+(\d+)$/m.exec(r.stdout)!;
    expect(Number(tokens)).toBe(Math.ceil(Number(bytes) / 4));
  });

  it("exits non-zero with the reason when the server cannot start or answer", async () => {
    const box = sandbox(CONFIG);
    await hermes(box, "mcp", "add", "gone", "--", "/nonexistent/server-binary");
    const r = await hermes(box, "mcp", "test", "gone");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot connect to MCP server 'gone'");
    expect(r.stderr).toContain("ENOENT");

    writeFileSync(
      join(box.home, "config.yaml"),
      `${CONFIG}mcp_servers:\n  stuck:\n    command: ${process.execPath}\n    args: [${FIXTURE}, hang-start]\n    connect_timeout: 1\n`,
    );
    const stuck = await hermes(box, "mcp", "test", "stuck");
    expect(stuck.code).toBe(1);
    expect(stuck.stderr).toContain("no answer within 1 s");
    expect((await hermes(box, "mcp", "test", "unknown")).code).toBe(1);
  });
});
