export { createWebhookAdapter, type WebhookAdapter } from "./adapter.js";
export { renderPrompt } from "./routes.js";
export { sign as signWebhookBody } from "./signature.js";
