/**
 * What the MCP client needs from the process around it, handed in by the assembly (so this layer
 * shares the terminal's rules without importing tool code): which variables are credentials, and
 * the process-group bookkeeping that kills every child when Hermes exits.
 */
export interface McpHost {
  /** True for variable names that look like credentials: never inherited by a stdio server. */
  isCredentialName(name: string): boolean;
  /** Registers a process group to be killed if Hermes exits while it still runs. */
  trackGroup(pid: number): void;
  untrackGroup(pid: number): void;
  /** Signals a whole process group. Never throws. */
  killGroup(pid: number, signal: NodeJS.Signals): void;
}

/**
 * The environment of a stdio server: Hermes's own minus credential-shaped variables, plus the
 * server's `env` (the one way a key reaches it).
 */
export function serverEnv(
  inherited: NodeJS.ProcessEnv,
  own: Readonly<Record<string, string>>,
  isCredentialName: (name: string) => boolean,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (value === undefined || isCredentialName(name)) continue;
    // Exported shell functions are code, not settings.
    if (value.startsWith("()")) continue;
    env[name] = value;
  }
  return { ...env, ...own };
}
