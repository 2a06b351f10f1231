import { afterEach, beforeEach } from "vitest";
import { killStrays } from "./cli.js";
import { type FakeLlm, type RecordedRequest, startFakeLlm } from "./fake-llm.js";

/**
 * A fresh scripted LLM server for every test of the file, handed to `use` once started; after each
 * test it is closed and any `hermes` process the test left running is killed.
 */
export function useFakeLlm(use: (fake: FakeLlm) => void, options?: Parameters<typeof startFakeLlm>[0]): void {
  let fake: FakeLlm | undefined;
  beforeEach(async () => {
    fake = await startFakeLlm(options);
    use(fake);
  });
  afterEach(async () => {
    killStrays();
    await fake?.close();
  });
}

/** config.yaml for a custom OpenAI-compatible endpoint at the fake server, plus `extra` YAML. */
export const openaiConfig = (fake: FakeLlm, extra = ""): string =>
  `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n${extra}`;

/** One chat-completions message as the server received it. */
export interface WireMessage {
  role: string;
  content: unknown;
  name?: string;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}

export const messagesOf = (r: RecordedRequest): WireMessage[] =>
  (r.body as { messages: WireMessage[] }).messages;

export const toolMessagesOf = (r: RecordedRequest): WireMessage[] =>
  messagesOf(r).filter((m) => m.role === "tool");
