/**
 * ajv's class, loaded on first use (~50 ms, so only paths that validate pay it). ajv is CommonJS:
 * Node and the bundle alike hand its exports over as the module's `default`, whose own `default`
 * is the class (`m.Ajv` is missing from the bundle, which once left validation silently off there).
 */
import type { Ajv } from "ajv";

let ajvClass: Promise<typeof Ajv> | undefined;

export function loadAjv(): Promise<typeof Ajv> {
  ajvClass ??= import("ajv").then((m) => m.default.default);
  return ajvClass;
}
