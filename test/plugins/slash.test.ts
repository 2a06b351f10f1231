import { describe, expect, it } from "vitest";
import { runSlash, type SlashContext, slashHelp } from "../../src/cli/repl/slash.js";
import type { PluginCommandContext } from "../../src/plugins/api.js";

function chat() {
  const printed: string[] = [];
  const waited: Promise<void>[] = [];
  const ran: Array<[string, string, string[], string]> = [];
  const plugins = {
    commands: () => [
      { plugin: "weather", name: "stations", description: "List stations.", args: "[country]" },
      { plugin: "weather", name: "model", description: "Shadowed by the built-in.", args: "" },
    ],
    runCommand: async (plugin: string, verb: string, args: string[], ctx: PluginCommandContext) => {
      ran.push([plugin, verb, args, ctx.surface]);
      if (args[0] === "fail") return { ok: false as const, error: "no network" };
      ctx.print(`stations of ${args.join(" ")}`);
      return { ok: true as const };
    },
  };
  const ctx = {
    print: (t: string) => void printed.push(t),
    wait: (task: Promise<void>) => void waited.push(task),
    currentModel: () => "m1",
    plugins,
  } as unknown as SlashContext;
  return { ctx, printed, waited, ran };
}

describe("plugin commands in the chat", () => {
  it("/verb runs the plugin's command with the words after it; the next prompt waits for it", async () => {
    const c = chat();
    expect(runSlash("/stations NO  SE", c.ctx)).toBe(true);
    await Promise.all(c.waited);
    expect(c.ran).toEqual([["weather", "stations", ["NO", "SE"], "chat"]]);
    expect(c.printed).toEqual(["stations of NO SE"]);
  });

  it("a failing command says so, built-in commands win a shared name, unknown ones stay unknown", async () => {
    const c = chat();
    runSlash("/stations fail", c.ctx);
    await Promise.all(c.waited);
    expect(c.printed).toEqual(["/stations (plugin weather): no network"]);
    runSlash("/model", c.ctx);
    expect(c.printed.at(-1)).toBe("Model: m1");
    runSlash("/nothing", c.ctx);
    expect(c.printed.at(-1)).toBe("Unknown command /nothing. Type /help for the list.");
    expect(c.ran).toHaveLength(1);
  });

  it("/help lists them with their plugin", () => {
    const help = slashHelp(chat().ctx.plugins);
    expect(help).toMatch(/\/stations \[country\]\s+List stations\. \[plugin weather\]/);
    expect(help).not.toContain("Shadowed by the built-in");
  });
});
