/**
 * Deleting a chat's session through the store the gateway writes: the delivery ledger keeps no text
 * of it (the user's message, the answer), and a redelivered update is still recognised and dropped.
 */
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { useGateway } from "./support/gateway.js";

const g = useGateway();

describe("gateway: deleting a session", () => {
  it("takes its messages' text out of the delivery ledger; a redelivered update stays a duplicate", async () => {
    const gw = await g.start();
    g.fake.setResponder(() => ({ text: "pelicans nest on the shore" }));
    const m = await gw.adapter.say("tell me about flamingos");
    await gw.adapter.waitForText("pelicans nest on the shore");
    await gw.runner.drain(2_000);
    const sessions = gw.t.runtime.sessions!;
    const sessionId = gw.routing.get(gw.dmKey())!.sessionId;
    const ledgerText = (): string => {
      const raw = new DatabaseSync(sessions.path, { readOnly: true });
      try {
        return JSON.stringify([
          raw.prepare("SELECT * FROM gateway_inbound").all(),
          raw.prepare("SELECT * FROM gateway_outbound").all(),
        ]);
      } finally {
        raw.close();
      }
    };
    expect(ledgerText()).toContain("tell me about flamingos");
    expect(ledgerText()).toContain("pelicans nest on the shore");

    expect(await sessions.deleteSession(sessionId)).toBe(true);

    expect(ledgerText()).not.toContain("flamingos");
    expect(ledgerText()).not.toContain("pelicans");
    expect(gw.ledger.inboundStatus(m.platform, m.updateId)).toBe("done");
    const again = await gw.restart();
    await again.adapter.push({ ...m });
    await again.runner.drain(2_000);
    expect(g.fake.requests).toHaveLength(1);
  });
});
