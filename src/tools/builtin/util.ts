/**
 * Small helpers shared by built-in tool handlers: JSON results and lenient argument reading
 * (models send numbers as strings and booleans as "true").
 */

/**
 * A handler whose module is imported on its first call: a tool family registers its schema at
 * start-up and loads its implementation only when a model uses it.
 */
export function lazyHandler<Args, Ctx, Out>(
  load: () => Promise<(args: Args, ctx: Ctx) => Promise<Out> | Out>,
): (args: Args, ctx: Ctx) => Promise<Out> {
  let handler: Promise<(args: Args, ctx: Ctx) => Promise<Out> | Out> | undefined;
  return async (args, ctx) => {
    handler ??= load();
    return (await handler)(args, ctx);
  };
}

/** A tool error the model can act on. */
export function toolError(message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ error: message, ...extra });
}

export function toolResult(value: Record<string, unknown>): string {
  return JSON.stringify(value);
}

/** A non-empty string argument, else undefined. */
export function argString(args: Record<string, unknown>, key: string): string | undefined {
  const v = args[key];
  return typeof v === "string" && v !== "" ? v : undefined;
}

export function argBool(args: Record<string, unknown>, key: string): boolean {
  const v = args[key];
  return v === true || v === "true" || v === 1;
}

/** An integer argument clamped to [min, max]; missing or unparsable values give `fallback`. */
export function argInt(
  args: Record<string, unknown>,
  key: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const v = args[key];
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(n)));
}
