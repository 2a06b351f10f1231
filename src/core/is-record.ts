/** A plain JSON-style object: not null, not an array. The one guard every layer uses for parsed input. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
