/** Messages of the pipeline's refusals (docs/security.md); tests compare against these. */
export const GUARD_MESSAGES = {
  foreignHost: (host: string) =>
    `This sandbox does not answer the Host "${host}". It answers localhost, 127.0.0.1 and [::1] on its port, ` +
    "its own addresses when bound beyond loopback, and names given with --allow-host.",
  crossSite:
    "Sandbox controls and dashboard actions accept requests from this origin only (a page on another site sent this one).",
  notJson: "Sandbox controls and dashboard actions accept Content-Type: application/json only.",
  remoteSandbox:
    "The /_sandbox routes and the dashboard answer loopback clients only; start with --allow-remote-sandbox to open them.",
  proxied:
    "This request came through a proxy (it carries Forwarded or X-Forwarded-For), so its client is unknown; " +
    "start with --trust-proxy to believe the proxy, or call the sandbox directly.",
} as const;

/** Why a text with U+0000 is refused: no stored text may hold it (PostgreSQL's cannot). */
export const NUL_MESSAGE = "Text may not contain the NUL character (\\u0000).";

/** Why a JSON body that is not an object is refused: every route takes an object (or no body). */
export const NOT_AN_OBJECT_MESSAGE = "The request body must be a JSON object.";
