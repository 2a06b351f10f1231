/**
 * `hermes fallback list|add|remove|clear`: the `fallback_providers` chain in config.yaml, tried in
 * order when the primary provider cannot answer. Writes go through setConfigValue, so the file's
 * comments survive and every change is validated before it is saved.
 */
import { loadConfig, setConfigValue } from "../../core/config.js";
import type { FallbackProvider } from "../../core/config-defaults.js";
import { ensureHermesHome, getHermesHome } from "../../core/home.js";

function fail(err: unknown): number {
  process.stderr.write(`hermes: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

function describe(f: FallbackProvider): string {
  const extras = [f.base_url ? `base_url ${f.base_url}` : "", f.api_mode ? `api_mode ${f.api_mode}` : ""];
  const more = extras.filter(Boolean).join(", ");
  return `${f.provider} / ${f.model}${more ? `  (${more})` : ""}${f.api_key ? "  [own api_key]" : ""}`;
}

function current(): { path: string; list: FallbackProvider[] } {
  const { config: path } = ensureHermesHome(getHermesHome());
  return { path, list: loadConfig(path).config.fallback_providers };
}

function printList(list: readonly FallbackProvider[]): void {
  if (list.length === 0) {
    process.stdout.write(
      "No fallback providers: when the primary cannot answer, the request fails.\n" +
        "Add one: hermes fallback add openrouter anthropic/claude-sonnet-4.5\n",
    );
    return;
  }
  process.stdout.write("Fallback providers, tried in order after the primary:\n");
  list.forEach((f, i) => {
    process.stdout.write(`  ${i + 1}. ${describe(f)}\n`);
  });
}

export async function fallbackList(): Promise<number> {
  try {
    printList(current().list);
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export async function fallbackAdd(
  provider: string,
  model: string,
  opts: { baseUrl?: string; apiMode?: string },
): Promise<number> {
  try {
    const { path, list } = current();
    const item: FallbackProvider = { provider, model };
    if (opts.baseUrl) item.base_url = opts.baseUrl;
    if (opts.apiMode) item.api_mode = opts.apiMode;
    const saved = setConfigValue(path, "fallback_providers", [...list, item]).fallback_providers;
    process.stdout.write(`Added fallback ${saved.length}: ${describe(item)}  (${path})\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export async function fallbackRemove(position: string): Promise<number> {
  try {
    const { path, list } = current();
    const n = Number(position);
    if (!Number.isInteger(n) || n < 1 || n > list.length) {
      return fail(
        list.length === 0
          ? "there are no fallback providers to remove"
          : `no fallback number ${position} (1 to ${list.length}; see 'hermes fallback list')`,
      );
    }
    const removed = list[n - 1]!;
    setConfigValue(
      path,
      "fallback_providers",
      list.filter((_, i) => i !== n - 1),
    );
    process.stdout.write(`Removed fallback ${n}: ${describe(removed)}\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export async function fallbackClear(): Promise<number> {
  try {
    const { path, list } = current();
    setConfigValue(path, "fallback_providers", []);
    process.stdout.write(`Removed ${list.length} fallback provider${list.length === 1 ? "" : "s"}.\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}
