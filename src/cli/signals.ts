/** Grace period between SIGTERM and a forced exit, for a tool that ignores the interrupt. */
const TERM_GRACE_MS = 3000;

/**
 * Signal handling for non-interactive runs. SIGINT interrupts the agent (a second one within two
 * seconds exits at once); SIGTERM interrupts and exits after a short grace even if something hangs.
 * Returns a function that removes the handlers.
 */
export function installInterruptHandler(onInterrupt: () => void): () => void {
  let last = 0;
  const onSigint = (): void => {
    const now = Date.now();
    if (now - last < 2000) process.exit(130);
    last = now;
    onInterrupt();
  };
  const onSigterm = (): void => {
    onInterrupt();
    setTimeout(() => process.exit(143), TERM_GRACE_MS).unref();
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  return () => {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
  };
}
