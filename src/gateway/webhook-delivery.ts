/**
 * The gateway's side of webhook routes that reach beyond their own callback: answers delivered to
 * a chat of another platform (through that platform's ledger rows, so a restart finishes them
 * once), direct deliveries that skip the agent, and the skills a route loads into its turns.
 */
import type { OutboundDelivery } from "../runtime/delivery/outbound.js";
import { Outbox } from "../runtime/delivery/outbox.js";
import type { DeliveryLog } from "../runtime/delivery/types.js";
import type { Runtime } from "../runtime/runtime.js";
import { SkillSession } from "../skills/service.js";
import type { Chat } from "./chat-sessions.js";
import type { DeliveryLedger } from "./ledger.js";
import {
  type ChatAddress,
  chatTarget,
  type GatewayLink,
  type OutboundTarget,
  type PlatformAdapter,
} from "./types.js";

export interface GatewayLinkParts {
  adapters: ReadonlyMap<string, PlatformAdapter>;
  ledger: DeliveryLedger;
  runtime: Runtime;
  log: DeliveryLog;
}

/** The link the runner hands its adapters with the sink. */
export function createGatewayLink(p: GatewayLinkParts): GatewayLink {
  // Deliveries answered in the same HTTP request get one attempt: the sender retries, not us.
  const direct = new Outbox(p.ledger, { log: p.log, maxAttempts: 1 });
  let skills: SkillSession | undefined;
  return {
    platforms: () => [...p.adapters.keys()],
    skillProblem: (name) => {
      skills ??= new SkillSession({
        home: p.runtime.paths.home,
        settings: p.runtime.config.skills ?? {},
        platform: "webhook",
      });
      const record = skills.record(name);
      return "error" in record ? record.error : undefined;
    },
    deliverNow: async (platform, target, text, key) => {
      const adapter = p.adapters.get(platform);
      if (!adapter) throw new Error(`platform ${platform} is not running in this gateway`);
      if (!direct.get(platform)) direct.add(adapter);
      const { repeated } = await direct.deliver(platform, key, target, text);
      return { repeated };
    },
  };
}

/** Where a turn's answer goes: an adapter to show it, the ledger-backed delivery and the chat. */
export interface AnswerOutput {
  adapter: PlatformAdapter;
  delivery: OutboundDelivery;
  target: OutboundTarget;
}

/**
 * The chat's own platform, or the chat a webhook route delivers to (`deliverTo`). A platform that
 * stopped being part of the gateway since the message came in leaves the answer with its own chat.
 */
export function answerOutput(
  chat: Chat,
  deliverTo: ChatAddress | undefined,
  adapters: ReadonlyMap<string, PlatformAdapter>,
  outbox: Outbox,
  replyTo: string | undefined,
  log: DeliveryLog,
): AnswerOutput {
  const to = deliverTo && adapters.get(deliverTo.platform);
  const via = deliverTo && outbox.get(deliverTo.platform);
  if (deliverTo && to && via) {
    // The incoming message's id means nothing in the other chat: no reply-to there.
    return { adapter: to, delivery: via, target: chatTarget(deliverTo) };
  }
  if (deliverTo) log("error", "answer target is not running; answering in the chat itself", { ...deliverTo });
  return {
    adapter: adapters.get(chat.platform)!,
    delivery: outbox.get(chat.platform)!,
    target: { ...chat.target, ...(replyTo ? { replyTo } : {}) },
  };
}

/**
 * The user message of a turn that runs with `names` loaded: each skill's instructions (loaded with
 * the chat agent's own skills session, so their variables pass through as for `/<skill-name>`),
 * then `text`. A skill that cannot be loaded any more is named in the message and logged, never
 * dropped silently.
 */
export async function withSkills(
  skills: Pick<SkillSession, "preload">,
  names: readonly string[],
  text: string,
  log: DeliveryLog,
): Promise<string> {
  const parts: string[] = [];
  for (const name of names) {
    const loaded = await skills.preload(name);
    if ("error" in loaded) {
      log("error", "a skill of the turn could not be loaded", { skill: name, error: loaded.error });
      parts.push(`[The skill "${name}" should be loaded for this request but could not be: ${loaded.error}]`);
      continue;
    }
    parts.push(loaded.message);
  }
  return [...parts, `[The request:]\n\n${text}`].join("\n\n");
}
