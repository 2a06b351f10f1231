import { expect } from "vitest";
import { SecretRedactor } from "../../src/tools/redact.js";

/** A redactor that knows no values: only shapes and key names can hide anything. */
export const redact = (text: string): string =>
  new SecretRedactor({ home: "/nonexistent-home", env: {} }).redact(text);

/** Asserts that each text comes back byte for byte (the text names the failing case). */
export function expectUnchanged(texts: readonly string[]): void {
  for (const text of texts) expect(redact(text), text).toBe(text);
}
