import type { HermesConfig } from "../core/config.js";
import { openStateStore } from "../state/open.js";
import type { StateStore, StateStoreError, StateStoreOptions } from "../state/store.js";
import { redactSecrets } from "../tools/redact.js";

/**
 * The redactor of what a profile persists (state.db, logs): the one tool results go through, with
 * the profile's .env and auth.json; none when `security.redact_secrets` is off.
 */
export function persistenceRedactor(
  config: Pick<HermesConfig, "security">,
  home: string,
): ((text: string) => string) | undefined {
  if (config.security?.redact_secrets === false) return undefined;
  return (text) => redactSecrets(text, home);
}

/** Opens a profile's state.db as every front end does: redacting per the profile's config. */
export function openProfileStore(
  stateDb: string,
  config: Pick<HermesConfig, "security">,
  home: string,
  options: Omit<StateStoreOptions, "redact"> = {},
): { store: StateStore } | { error: StateStoreError } {
  const redact = persistenceRedactor(config, home);
  return openStateStore(stateDb, { ...options, ...(redact ? { redact } : {}) });
}
