/**
 * Ctrl+C handling for non-interactive runs: the first SIGINT interrupts the agent, a second one
 * within two seconds exits at once. Returns a function that removes the handler.
 */
export function installInterruptHandler(onInterrupt: () => void): () => void {
  let last = 0;
  const handler = (): void => {
    const now = Date.now();
    if (now - last < 2000) process.exit(130);
    last = now;
    onInterrupt();
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
}
