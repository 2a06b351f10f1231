import type { SearchBackendOptions } from "./search-types.js";
import type { AddressVerdict, Resolver } from "./url-guard.js";

/** What the web tools take from their host besides config; defaults suit a real run. */
export interface WebToolOptions {
  /** Where API keys are read, at each call (default `process.env`, which holds HERMES_HOME/.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Replaces search services' base URLs (a proxy, or a stand-in server). */
  endpoints?: SearchBackendOptions["endpoints"];
  /** Name resolution for the SSRF guard (default: the system resolver). */
  resolve?: Resolver;
  /** Address classification for the SSRF guard (default: `classifyAddress`). */
  classify?: (address: string) => AddressVerdict;
}
