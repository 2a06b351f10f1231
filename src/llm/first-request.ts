/**
 * Background work that must not compete with a process's first model request (model list refresh)
 * waits here: it starts once that request is on its way, or after a while when none is made (a
 * chat waiting for its first message).
 */

let noteSent: () => void = () => undefined;
const sent = new Promise<void>((resolve) => {
  noteSent = resolve;
});

/** Called by the protocol streams as a request goes out. Cheap; idempotent. */
export function noteModelRequest(): void {
  noteSent();
}

/** Resolves after the first model request of the process went out, or after `maxWaitMs`. Never rejects. */
export function afterFirstModelRequest(maxWaitMs: number): Promise<void> {
  return Promise.race([
    sent,
    new Promise<void>((resolve) => {
      // Unreferenced: waiting for this must not keep a finished process alive.
      setTimeout(resolve, maxWaitMs).unref();
    }),
  ]);
}
