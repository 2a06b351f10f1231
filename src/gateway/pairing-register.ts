import type { Command } from "commander";

/** `hermes pairing ...`; the actions load only when one runs. */
export function addPairingCommands(program: Command, setExit: (code: number) => void): void {
  const load = () => import("./auth/pairing-commands.js");
  const pairing = program
    .command("pairing")
    .description("who may DM the gateway: list | approve PLATFORM CODE | revoke PLATFORM USER");
  pairing
    .command("list")
    .description("pending pairing requests (never their codes) and approved users")
    .option("--platform <name>", "only this platform")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean; platform?: string }) =>
      setExit(await (await load()).pairingList(opts)),
    );
  pairing
    .command("approve")
    .description("let the user who was given CODE talk to Hermes; exit 1 for an unknown or expired code")
    .argument("<platform>", "the platform the code came from (e.g. telegram)")
    .argument("<code>", "the 8-character code the user received")
    .action(async (platform: string, code: string) =>
      setExit(await (await load()).pairingApprove(platform, code)),
    );
  pairing
    .command("revoke")
    .description("remove a user's approval (and any code waiting for them), or release a pinned @handle")
    .argument("<platform>", "the platform (e.g. telegram)")
    .argument("<user>", "the user's id on that platform, or an allowlist @handle to release")
    .action(async (platform: string, user: string) =>
      setExit(await (await load()).pairingRevoke(platform, user)),
    );
}
