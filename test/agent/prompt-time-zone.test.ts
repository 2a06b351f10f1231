import { afterEach, describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/agent/prompt/build.js";
import { hostTimeZone } from "../../src/agent/prompt/time-zone.js";

const original = process.env.TZ;

/** Node tells ICU when TZ changes, so Intl answers for the new value within this process. */
function setTz(value: string | undefined): void {
  if (value === undefined) delete process.env.TZ;
  else process.env.TZ = value;
}

const intlZone = (): string => String(Intl.DateTimeFormat().resolvedOptions().timeZone);

afterEach(() => setTz(original));

describe("hostTimeZone", () => {
  it("gives Intl's name for every zone ICU lists, without the prefix or with ':'", () => {
    for (const zone of Intl.supportedValuesOf("timeZone")) {
      setTz(zone);
      expect(hostTimeZone()).toBe(intlZone());
      setTz(`:${zone}`);
      expect(hostTimeZone()).toBe(intlZone());
    }
  });

  it("gives Intl's name for aliases, UTC spellings, POSIX strings and bad values", () => {
    const odd = [
      "UTC",
      "Etc/UTC",
      "GMT",
      "Asia/Kolkata",
      "US/Eastern",
      "EST5EDT",
      "Etc/GMT+5",
      "<+03>-3",
      "UTC0",
      "Foo/Bar",
      "",
      "posix/Europe/Berlin",
      "/usr/share/zoneinfo/Europe/Paris",
      undefined,
    ];
    for (const value of odd) {
      setTz(value);
      expect(hostTimeZone(), `TZ=${String(value)}`).toBe(intlZone());
    }
  });

  it("puts the same name in the system prompt as before", () => {
    setTz("Europe/Berlin");
    const prompt = buildSystemPrompt({
      home: "/nonexistent-hermes-home",
      platform: "cli",
      model: "m",
      environment: { os: "Linux", user: "u", home: "/home/u", cwd: "/w" },
      backend: "local",
      toolUseEnforcement: false,
      toolNames: [],
      now: new Date("2026-01-02T03:04:05Z"),
    });
    expect(prompt).toContain("Session started: 2026-01-02 (Europe/Berlin).");
  });
});
