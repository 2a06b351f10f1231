// Child process for the delivery tests that kill a gateway at the worst moment (SIGKILL). Its
// adapter appends every message it sends to LOG (one JSON line each, written before the call
// resolves, as a platform would have it), and hangs forever on the call the mode names, after
// printing "hanging" so the parent knows when to kill.
//
//   record DB LOG KEY TEXT_FILE: records TEXT_FILE's text under KEY, prints "recorded", waits to be killed.
//   partial DB LOG KEY TEXT_FILE LIMIT: delivers it at LIMIT characters per message; hangs on the 2nd send.
//   reply DB LOG KEY TEXT_FILE: streams TEXT_FILE as a Reply (previews), then finish() with it plus
//     "\n\nDone."; hangs on the first call finish() makes.
//
// Usage: node --experimental-transform-types --import ../../support/ts-child.mjs delivery-child.mjs MODE ...
import { appendFileSync, readFileSync } from "node:fs";

const src = (path) => new URL(`../../../src/gateway/${path}`, import.meta.url).href;
const { gatewayLedger } = await import(src("ledger.ts"));
const { SqliteSessionStore } = await import(
  new URL("../../../src/state/sqlite/store.ts", import.meta.url).href
);
const { OutboundDelivery } = await import(
  new URL("../../../src/runtime/delivery/outbound.ts", import.meta.url).href
);
const { Reply } = await import(src("reply.ts"));

const [mode, db, log, key, textFile, limit] = process.argv.slice(2);
const text = readFileSync(textFile, "utf8");

let sends = 0;
let hangOnCall = Number.POSITIVE_INFINITY;
let calls = 0;
const never = () => new Promise(() => {});
const hang = async () => {
  process.stdout.write("hanging\n");
  await never();
};
const adapter = {
  name: "child",
  maxMessageLength: Number(limit ?? 4096),
  minEditIntervalMs: 0,
  async start() {},
  async stop() {},
  async send(target, body) {
    calls++;
    if (++sends === 2 && mode === "partial") await hang();
    if (calls >= hangOnCall) await hang();
    const id = `c${sends}`;
    appendFileSync(log, `${JSON.stringify({ method: "send", id, chatId: target.chatId, text: body })}\n`);
    return { messageId: id };
  },
  async edit(target, messageId, body) {
    calls++;
    if (calls >= hangOnCall) await hang();
    appendFileSync(
      log,
      `${JSON.stringify({ method: "edit", id: messageId, chatId: target.chatId, text: body })}\n`,
    );
  },
};

const ledger = gatewayLedger(new SqliteSessionStore(db));
const delivery = new OutboundDelivery(adapter, ledger, { retryBaseMs: 1 });
const target = { chatId: "42" };

if (mode === "record") {
  await delivery.record(key, target, text);
  process.stdout.write("recorded\n");
  await never();
} else if (mode === "partial") {
  await delivery.deliver(key, target, text);
  process.stdout.write("delivered\n");
} else if (mode === "reply") {
  const reply = new Reply({
    delivery,
    adapter,
    target,
    key,
    streaming: { enabled: true, editIntervalMs: 10, bufferThreshold: 1 },
  });
  for (const piece of text.match(/[\s\S]{1,50}/g) ?? []) {
    reply.onEvent({ type: "text_delta", text: piece, attempt: 1 });
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  while (sends === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
  process.stdout.write("streamed\n");
  hangOnCall = calls + 1;
  // The answer differs from what was streamed, so finish() has an edit to make.
  await reply.finish(`${text}\n\nDone.`);
  process.stdout.write("finished\n");
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
