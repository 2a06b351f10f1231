/** The gateway's routing table lives in the store (state/routing.ts): a chat's key → its current session. */
export type { Route, RouteEntry, RoutingStore as SessionRouting } from "../state/routing.js";
