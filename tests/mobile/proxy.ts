/**
 * A real HTTP proxy on a loopback port in front of the served sandbox: it records every
 * request an app sends and can misbehave like a mobile network or a load balancer does
 * (drop the answer, answer 502 or 429, never answer), so the SDK's handling is tested on the wire.
 */
import type { Server } from "bun";

export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Decides the answer to the n-th request (0-based); `forward()` passes it to the sandbox. */
export type Behaviour = (
  n: number,
  forward: () => Promise<Response>,
  request: SeenRequest,
) => Promise<Response> | Response;

export interface Proxy {
  url: string;
  seen: SeenRequest[];
  /** Answers the sandbox gave to forwarded requests, in order (status and parsed body). */
  upstream: { status: number; body: any }[];
  stop(): Promise<void>;
}

export function proxy(target: string, behave: Behaviour = (_n, forward) => forward()): Proxy {
  const seen: SeenRequest[] = [];
  const upstream: { status: number; body: any }[] = [];
  const server: Server<unknown> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const headers = Object.fromEntries(request.headers);
      const seenRequest: SeenRequest = {
        method: request.method,
        path: url.pathname + url.search,
        headers,
        body: await request.text(),
      };
      const n = seen.push(seenRequest) - 1;
      const forward = async () => {
        const forwardHeaders = { ...headers };
        delete forwardHeaders.host;
        delete forwardHeaders["content-length"];
        const response = await fetch(target + seenRequest.path, {
          method: seenRequest.method,
          headers: forwardHeaders,
          body: seenRequest.method === "GET" || seenRequest.method === "HEAD" ? undefined : seenRequest.body,
        });
        const text = await response.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // keep the text
        }
        upstream.push({ status: response.status, body });
        return new Response(text, { status: response.status, headers: response.headers });
      };
      return behave(n, forward, seenRequest);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, seen, upstream, stop: () => server.stop(true) };
}
