import { afterEach } from "vitest";
import { GatewayAuth } from "../../../src/gateway/auth/authorize.js";
import { type DeliveryLedger, gatewayLedger } from "../../../src/gateway/ledger.js";
import { GatewayRunner } from "../../../src/gateway/runner.js";
import { sessionKeyOf } from "../../../src/gateway/session-key.js";
import type { RoutingStore } from "../../../src/state/routing.js";
import { type TestRuntime, useRuntime } from "../../runtime/support.js";
import type { FakeLlm } from "../../support/fake-llm.js";
import { MemoryAdapter } from "./memory-adapter.js";

/** Settings every runner test shares: quick streaming edits, manual approvals (no judge model call). */
const BASE_YAML = "streaming:\n  edit_interval: 0.02\n  buffer_threshold: 1\n";
const MANUAL_APPROVALS = "approvals:\n  mode: manual\n";

export interface TestGateway {
  t: TestRuntime;
  runner: GatewayRunner;
  adapter: MemoryAdapter;
  ledger: DeliveryLedger;
  /** A second look at gateway_routing (what a restarted gateway would read). */
  routing: RoutingStore;
  /** The session key of a DM from `userId` (the adapter's default chat for that user). */
  dmKey(userId?: string): string;
  /**
   * Drains this runner and starts another on the same runtime, state.db and ledger, with a new
   * memory adapter (what a gateway restart does); `between` runs while none is running.
   */
  restart(between?: () => void): Promise<TestGateway>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

export interface GatewayHarness {
  readonly fake: FakeLlm;
  /** A runtime on the fake model, the real ledger and auth, a memory adapter and a started runner. */
  start(extraYaml?: string, options?: StartOptions): Promise<TestGateway>;
}

/** Users u1, u2 and u3 may talk to the memory platform; anyone else is a stranger. */
export function useGateway(): GatewayHarness {
  const h = useRuntime();
  let current: TestGateway | undefined;
  // Registered after useRuntime's: vitest runs it first, so the runner drains before the runtime is disposed.
  afterEach(async () => {
    if (!current) return;
    await current.runner.drain(2_000);
    current = undefined;
  });
  return {
    get fake() {
      return h.fake;
    },
    start: async (extraYaml = "", options = {}) => {
      const approvals = extraYaml.includes("approvals:") ? "" : MANUAL_APPROVALS;
      const t = h.start(`${BASE_YAML}${approvals}${extraYaml}`, { platform: "gateway" });
      const ledger = gatewayLedger(t.runtime.sessions!);
      const routing = t.runtime.sessions!.routing;
      const launch = async (): Promise<TestGateway> => {
        const adapter = new MemoryAdapter();
        const auth = new GatewayAuth({
          pairing: t.runtime.sessions!.pairing,
          config: t.runtime.config,
          env: { MEMCHAT_ALLOWED_USERS: "u1,u2,u3", ...options.env },
        });
        const runner = new GatewayRunner({
          runtime: t.runtime,
          adapters: [adapter],
          ledger,
          auth,
          workDir: t.box.work,
          ...(options.now ? { now: options.now } : {}),
        });
        await runner.start();
        const gw: TestGateway = {
          t,
          runner,
          adapter,
          ledger,
          routing,
          dmKey: (userId = "u1") =>
            sessionKeyOf(
              { platform: adapter.name, chatType: "dm", chatId: `c-${userId}`, userId },
              { groupSessionsPerUser: true, threadSessionsPerUser: false },
            ),
          restart: async (between) => {
            await runner.drain(2_000);
            between?.();
            current = await launch();
            return current;
          },
        };
        current = gw;
        return gw;
      };
      return launch();
    },
  };
}
