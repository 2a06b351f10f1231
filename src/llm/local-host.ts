/**
 * Whether an endpoint is on this machine or its network: loopback, private and link-local
 * addresses, and `*.local` / `*.internal` / `*.lan` / `*.home` names (host.docker.internal included).
 * Such a server has no list price, and when it refuses connections it is simply not started.
 */
export function isLocalEndpoint(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1" || host === "0.0.0.0")
    return true;
  if (/\.(local|internal|lan|home)$/.test(host)) return true;
  if (/^(127\.|10\.|192\.168\.|169\.254\.)/.test(host)) return true;
  if (/^172\.(1[6-9]|2\d|3[01])\./.test(host)) return true;
  // IPv6 unique-local (fc00::/7) and link-local (fe80::/10).
  return /^f[cd][0-9a-f]{2}:/.test(host) || /^fe[89ab][0-9a-f]:/.test(host);
}
