/**
 * Replayed webhooks: a signed body seen before never runs a second turn, whatever delivery header it
 * carries and across a restart; a signed timestamp older than five minutes is refused.
 */
import { describe, expect, it } from "vitest";
import {
  githubSigned,
  hmac,
  timestampSigned,
  until,
  useWebhookGateway,
  WEBHOOK_SECRET,
} from "./support/webhook-gateway.js";

const h = useWebhookGateway();
const routes = { alerts: { secret: WEBHOOK_SECRET, prompt: "Alert: {{title}}" } };

describe("webhook replay protection", () => {
  it("answers a signed body replayed under a new x-request-id as a duplicate: one turn, also after a restart", async () => {
    h.fake.setResponder(() => ({ text: "looked at it" }));
    const gw = await h.start({ routes });
    const body = JSON.stringify({ title: "disk full on db-1" });
    const first = await gw.post("alerts", body, { ...githubSigned(body), "x-request-id": "r-1" });
    expect(first.status).toBe(202);
    await until(() => h.fake.requests.length === 1, "the first turn");

    const replay = await gw.post("alerts", body, { ...githubSigned(body), "x-request-id": "r-2" });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ status: "duplicate" });

    const restarted = await gw.restart();
    const later = await restarted.post("alerts", body, { ...githubSigned(body), "x-request-id": "r-3" });
    expect(later.status).toBe(200);
    expect(await later.json()).toMatchObject({ status: "duplicate" });
    await restarted.runner.drain(5_000);
    expect(h.fake.requests).toHaveLength(1);
  });

  it("takes a delivery id seen before as a duplicate even when the body differs", async () => {
    h.fake.setResponder(() => ({ text: "ok" }));
    const gw = await h.start({ routes });
    const a = JSON.stringify({ title: "a" });
    const b = JSON.stringify({ title: "b" });
    expect((await gw.post("alerts", a, { ...githubSigned(a), "x-github-delivery": "d-1" })).status).toBe(202);
    const again = await gw.post("alerts", b, { ...githubSigned(b), "x-github-delivery": "d-1" });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ status: "duplicate", request_id: "d-1" });
    await gw.runner.drain(5_000);
    expect(h.fake.requests).toHaveLength(1);
  });

  it("accepts a fresh signed timestamp and refuses a stale one, a moved one and an unsigned one", async () => {
    h.fake.setResponder(() => ({ text: "ok" }));
    const gw = await h.start({ routes });
    const body = JSON.stringify({ title: "cpu high" });
    const now = Math.floor(Date.now() / 1000);

    expect((await gw.post("alerts", body, timestampSigned(body, now))).status).toBe(202);
    // The same alert a minute later is a new delivery: the timestamp is part of what was signed.
    expect((await gw.post("alerts", body, timestampSigned(body, now + 60))).status).toBe(202);
    // Replayed as it was: a duplicate.
    const replay = await gw.post("alerts", body, timestampSigned(body, now));
    expect(replay.status).toBe(200);

    const stale = await gw.post("alerts", body, timestampSigned(body, now - 600));
    expect(stale.status).toBe(401);
    expect(await stale.json()).toEqual({ error: "stale timestamp: more than 300 s from the server's clock" });
    // A captured request with its timestamp moved forward no longer matches its signature.
    const moved = { ...timestampSigned(body, now - 600), "x-hermes-timestamp": String(now) };
    expect((await gw.post("alerts", body, moved)).status).toBe(401);
    // A body-only signature sent with a timestamp header does not count as a timestamped one.
    const mixed = { "x-hermes-timestamp": String(now), "x-hermes-signature": hmac(WEBHOOK_SECRET, body) };
    expect((await gw.post("alerts", body, mixed)).status).toBe(401);
    const garbled = { ...timestampSigned(body, now), "x-hermes-timestamp": "soon" };
    expect((await gw.post("alerts", body, garbled)).status).toBe(401);

    await gw.runner.drain(5_000);
    expect(h.fake.requests).toHaveLength(2);
  });

  it("with require_timestamp refuses requests that carry none", async () => {
    const gw = await h.start({ routes: { alerts: { ...routes.alerts, require_timestamp: true } } });
    const body = JSON.stringify({ title: "x" });
    const bare = await gw.post("alerts", body, githubSigned(body));
    expect(bare.status).toBe(401);
    expect(await bare.json()).toEqual({ error: "this route needs a signed X-Hermes-Timestamp" });
    h.fake.setResponder(() => ({ text: "ok" }));
    expect((await gw.post("alerts", body, timestampSigned(body))).status).toBe(202);
  });
});
