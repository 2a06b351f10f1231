import type { Command } from "commander";
import type { ServiceLoaders } from "./services.js";

export interface GatewayCommandsOptions {
  /** Services of other front ends that run inside the gateway (api_server), loaded only when on. */
  services?: ServiceLoaders;
  /** Hermes's version, as the runtime tells MCP servers. */
  version?: string;
}

/**
 * `hermes gateway run | start | stop | restart | status | install | uninstall` and `hermes send`.
 * Only declarations here: each action imports its module when it runs.
 */
export function addGatewayCommands(
  options: GatewayCommandsOptions = {},
): (program: Command, setExit: (code: number) => void) => void {
  return (program: Command, setExit: (code: number) => void): void => {
    const actions = () => import("./process/commands.js");
    const gateway = program
      .command("gateway")
      .description("the messaging gateway: run | start | stop | restart | status | install | uninstall");
    gateway
      .command("run")
      .description("run the gateway in the foreground until Ctrl+C / SIGTERM (then it drains running turns)")
      .option("--replace", "stop a gateway of this profile that is running, and take over")
      .action(async (opts: { replace?: boolean }) => {
        const { runGateway } = await import("./main.js");
        setExit(
          await runGateway({
            replace: opts.replace === true,
            ...(options.services ? { services: options.services } : {}),
            ...(options.version ? { version: options.version } : {}),
          }),
        );
      });
    gateway
      .command("start")
      .description("start the gateway: its systemd user service if installed, else a background process")
      .action(async () => setExit(await (await actions()).gatewayStart()));
    gateway
      .command("stop")
      .description("stop the running gateway (it drains first; killed after gateway.drain_timeout + 10 s)")
      .action(async () => setExit(await (await actions()).gatewayStop()));
    gateway
      .command("restart")
      .description("stop the running gateway, then start it again")
      .action(async () => setExit(await (await actions()).gatewayRestart()));
    gateway
      .command("status")
      .description("platforms, live sessions, busy chats and undelivered messages; exit 1 when not running")
      .option("--json", "print JSON")
      .action(async (opts: { json?: boolean }) => setExit((await actions()).gatewayStatus(opts)));
    gateway
      .command("install")
      .description(
        "install the gateway as a systemd user service (~/.config/systemd/user/hermes-gateway*.service)",
      )
      .action(async () => setExit((await actions()).gatewayInstall()));
    gateway
      .command("uninstall")
      .description("stop, disable and remove the gateway's systemd user service")
      .action(async () => setExit((await actions()).gatewayUninstall()));
    program
      .command("send")
      .description(
        'send one message through a configured platform, e.g. hermes send telegram:123456789 "done"',
      )
      .argument("<target>", "<platform>:<chat_id>[:<thread_id>]")
      .argument("<text>", "the message (markdown)")
      .action(async (target: string, text: string) =>
        setExit(await (await import("./send.js")).sendMessage(target, text)),
      );
  };
}
