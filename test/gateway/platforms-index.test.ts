import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/core/config.js";
import { loadDotEnv } from "../../src/core/env.js";
import {
  detectPlatforms,
  loadAdapterFactory,
  noPlatformMessage,
  platformSettings,
} from "../../src/gateway/platforms/index.js";
import { tempDir } from "../support/temp.js";

const config = (yaml: string) => parseConfigText(yaml, "config.yaml").config;
const onNames = (yaml: string, env: NodeJS.ProcessEnv = {}) =>
  detectPlatforms(config(yaml), env)
    .filter((s) => s.on)
    .map((s) => s.name);

describe("platform detection", () => {
  it("turns nothing on by default", () => {
    const states = detectPlatforms(config(""), {});
    expect(states.map((s) => [s.name, s.on])).toEqual([
      ["telegram", false],
      ["webhook", false],
      ["api_server", false],
    ]);
    const message = noPlatformMessage(states);
    expect(message).toContain("TELEGRAM_BOT_TOKEN");
    expect(message).toContain("API_SERVER_KEY");
    expect(message).toContain("platforms.webhook.enabled: true");
    expect(message).toContain("platforms.telegram.enabled: true");
  });

  it("turns a platform on from its credential in the environment", () => {
    expect(onNames("", { TELEGRAM_BOT_TOKEN: "123:abc" })).toEqual(["telegram"]);
    expect(onNames("", { API_SERVER_KEY: "k".repeat(20) })).toEqual(["api_server"]);
    expect(onNames("", { TELEGRAM_BOT_TOKEN: "  " })).toEqual([]);
    const telegram = detectPlatforms(config(""), { TELEGRAM_BOT_TOKEN: "123:abc" })[0]!;
    expect(telegram.reason).toBe("TELEGRAM_BOT_TOKEN is set");
    expect(telegram.kind).toBe("chat");
  });

  it("reads credentials from HERMES_HOME/.env once loaded, the real environment winning", () => {
    const home = tempDir("hermes-platforms-");
    writeFileSync(join(home, ".env"), "TELEGRAM_BOT_TOKEN=42:from-dotenv\nAPI_SERVER_KEY=\n");
    const env: NodeJS.ProcessEnv = { API_SERVER_KEY: "a-key-from-the-shell-123" };
    loadDotEnv(join(home, ".env"), env);
    expect(env.TELEGRAM_BOT_TOKEN).toBe("42:from-dotenv");
    expect(onNames("", env)).toEqual(["telegram", "api_server"]);
  });

  it("turns a platform on with platforms.<name>.enabled", () => {
    expect(onNames("platforms:\n  telegram:\n    enabled: true\n")).toEqual(["telegram"]);
    expect(onNames("platforms:\n  api_server:\n    enabled: true\n")).toEqual(["api_server"]);
  });

  it("needs a route besides enabled for the webhook platform, and says so", () => {
    const states = detectPlatforms(config("platforms:\n  webhook:\n    enabled: true\n"), {});
    const webhook = states.find((s) => s.name === "webhook")!;
    expect(webhook.on).toBe(false);
    expect(webhook.reason).toContain("routes is empty");
    expect(noPlatformMessage(states)).toContain("routes is empty");
    expect(
      onNames(
        "platforms:\n  webhook:\n    enabled: true\n    routes:\n      github:\n        secret: s3cret\n",
      ),
    ).toEqual(["webhook"]);
    // Routes without enabled: still off.
    expect(onNames("platforms:\n  webhook:\n    routes:\n      github: {}\n")).toEqual([]);
  });

  it("reads settings and credentials from the extra block", () => {
    const yaml = [
      "platforms:",
      "  webhook:",
      "    extra:",
      "      enabled: true",
      "      port: 9100",
      "      routes:",
      "        ci: { secret: abc }",
      "  api_server:",
      "    extra:",
      "      key: a-key-in-extra-123456",
      "      port: 9200",
      "",
    ].join("\n");
    expect(onNames(yaml)).toEqual(["webhook", "api_server"]);
    const c = config(yaml);
    expect(platformSettings(c, "webhook")).toMatchObject({
      enabled: true,
      port: 9100,
      routes: { ci: { secret: "abc" } },
    });
    expect(platformSettings(c, "api_server")).toMatchObject({
      key: "a-key-in-extra-123456",
      port: 9200,
      host: "127.0.0.1",
    });
    expect(platformSettings(c, "webhook")).not.toHaveProperty("extra");
  });

  it("lets a key written outside extra win over the same key inside it", () => {
    const c = config(
      [
        "platforms:",
        "  api_server:",
        "    port: 7000",
        "    extra:",
        "      port: 9200",
        "      host: 0.0.0.0",
        "",
      ].join("\n"),
    );
    expect(platformSettings(c, "api_server")).toMatchObject({ port: 7000, host: "0.0.0.0" });
  });

  it("loads a chat platform's adapter module only on demand, and refuses a service or unknown name", async () => {
    expect(typeof (await loadAdapterFactory("webhook"))).toBe("function");
    expect(typeof (await loadAdapterFactory("telegram"))).toBe("function");
    await expect(loadAdapterFactory("api_server")).rejects.toThrow(/not a chat platform/);
    await expect(loadAdapterFactory("irc")).rejects.toThrow(/not a chat platform/);
  });
});
