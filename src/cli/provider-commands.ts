/**
 * `hermes auth ...` and `hermes fallback ...`: command definitions only. The implementations load
 * on use (`await import`), so `hermes --help` stays fast.
 */
import type { Command } from "commander";

export function addProviderCommands(program: Command, setExit: (code: number) => void): void {
  const auth = program
    .command("auth")
    .description("pooled API keys in auth.json (add | list | remove | reset | status)");
  auth
    .command("add")
    .description("add a key to a provider's pool (reads it from stdin, hidden, unless --key is given)")
    .argument("<provider>", "openrouter | anthropic | openai | nous | custom")
    .option("--key <key>", "the API key (avoid: it lands in your shell history)")
    .option("--label <label>", "a name to tell keys apart, e.g. 'work'")
    .action(async (provider: string, opts: { key?: string; label?: string }) =>
      setExit(await (await import("./commands/auth.js")).authAdd(provider, opts)),
    );
  auth
    .command("list")
    .description("show pooled keys (masked), their state and use")
    .argument("[provider]", "only this provider")
    .action(async (provider?: string) =>
      setExit(await (await import("./commands/auth.js")).authList(provider)),
    );
  auth
    .command("remove")
    .description("remove a key by its number in 'auth list', its id or its label")
    .argument("<provider>", "provider of the pool")
    .argument("<key>", "number, id or label")
    .action(async (provider: string, which: string) =>
      setExit(await (await import("./commands/auth.js")).authRemove(provider, which)),
    );
  auth
    .command("reset")
    .description("make exhausted keys usable again")
    .argument("[provider]", "only this provider")
    .action(async (provider?: string) =>
      setExit(await (await import("./commands/auth.js")).authReset(provider)),
    );
  auth
    .command("status")
    .description("one line per provider: keys, availability and strategy")
    .action(async () => setExit(await (await import("./commands/auth.js")).authStatus()));

  const fallback = program
    .command("fallback")
    .description("providers tried when the primary cannot answer (list | add | remove | clear)");
  fallback
    .command("list")
    .description("show the fallback chain in order")
    .action(async () => setExit(await (await import("./commands/fallback.js")).fallbackList()));
  fallback
    .command("add")
    .description("append a provider and model to the chain")
    .argument("<provider>", "openrouter | anthropic | openai | nous | custom")
    .argument("<model>", "model id on that provider")
    .option("--base-url <url>", "endpoint (required for custom)")
    .option("--api-mode <mode>", "chat_completions | anthropic_messages | codex_responses")
    .action(async (provider: string, model: string, opts: { baseUrl?: string; apiMode?: string }) =>
      setExit(await (await import("./commands/fallback.js")).fallbackAdd(provider, model, opts)),
    );
  fallback
    .command("remove")
    .description("remove entry N of 'fallback list'")
    .argument("<n>", "position, from 1")
    .action(async (n: string) => setExit(await (await import("./commands/fallback.js")).fallbackRemove(n)));
  fallback
    .command("clear")
    .description("remove every fallback")
    .action(async () => setExit(await (await import("./commands/fallback.js")).fallbackClear()));
}
