/**
 * Bot API failures as PlatformSendError: the delivery ledger retries what may succeed later (429,
 * 5xx, network) and gives up on what never will (other 4xx: bad text, chat gone, bot blocked).
 */
import { PlatformSendError } from "../../types.js";

/** The parts of grammY's GrammyError this module reads (matched structurally: grammY loads lazily). */
interface BotApiFailure {
  error_code: number;
  description: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

function isBotApiFailure(error: unknown): error is BotApiFailure {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as BotApiFailure).error_code === "number" &&
    typeof (error as BotApiFailure).description === "string"
  );
}

/** The Bot API's description of an API error, or undefined for network failures. */
export function apiDescription(error: unknown): string | undefined {
  return isBotApiFailure(error) ? error.description : undefined;
}

export const isNotModified = (error: unknown): boolean =>
  /message is not modified/i.test(apiDescription(error) ?? "");

export const isParseError = (error: unknown): boolean =>
  /can't parse entities/i.test(apiDescription(error) ?? "");

/** Maps anything a Bot API call threw to a PlatformSendError saying whether to try again. */
export function toSendError(method: string, error: unknown): PlatformSendError {
  if (error instanceof PlatformSendError) return error;
  if (isBotApiFailure(error)) {
    const code = error.error_code;
    const retryAfter = error.parameters?.retry_after;
    const retryable = code === 429 || code >= 500;
    const migrated = error.parameters?.migrate_to_chat_id;
    const hint = migrated !== undefined ? ` (the group is now the supergroup ${migrated})` : "";
    return new PlatformSendError(
      `telegram ${method}: ${code} ${error.description}${hint}`,
      retryable,
      retryAfter,
    );
  }
  const reason = error instanceof Error ? (causeMessage(error) ?? error.message) : String(error);
  return new PlatformSendError(`telegram ${method}: network error: ${reason}`, true);
}

/** grammY wraps fetch failures (HttpError.error); the inner message says what actually happened. */
function causeMessage(error: Error): string | undefined {
  const inner = (error as { error?: unknown }).error ?? error.cause;
  return inner instanceof Error ? `${error.message} (${inner.message})` : undefined;
}
