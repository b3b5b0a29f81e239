/**
 * A real webhook receiver for tests: Bun.serve on a free loopback port that keeps every request
 * it gets and answers as the test says (by default 200 "ok").
 */
export interface Received {
  event: string | null;
  deliveryId: string | null;
  signature: string | null;
  userAgent: string | null;
  contentType: string | null;
  /** Every header as received (what a receiver hands to verifyPaySandboxSignature). */
  headers: Headers;
  raw: string;
  json: any;
  /** The status this receiver answered with; null when it never answered. */
  answered: number | null;
}

/** What to do with the n-th request (1-based): a status to answer, or "hang" to never answer. */
export type Behaviour = (request: Received, n: number) => number | "hang";

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests answered 2xx, in arrival order. */
  delivered(): Received[];
  behave(behaviour: Behaviour): void;
  stop(): Promise<void>;
}

export function startReceiver(behaviour: Behaviour = () => 200, path = "/hooks"): Receiver {
  let current = behaviour;
  const received: Received[] = [];
  const hanging = new Set<() => void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const raw = await request.text();
      let json: unknown = undefined;
      try {
        json = JSON.parse(raw);
      } catch {
        // kept raw
      }
      const entry: Received = {
        event: request.headers.get("paysandbox-event-name"),
        deliveryId: request.headers.get("paysandbox-delivery-id"),
        signature: request.headers.get("paysandbox-signature"),
        userAgent: request.headers.get("user-agent"),
        contentType: request.headers.get("content-type"),
        headers: new Headers(request.headers),
        raw,
        json,
        answered: null,
      };
      received.push(entry);
      const action = current(entry, received.length);
      if (action === "hang") {
        // Never answers while the test runs; released (with a 599 nobody reads) when the receiver stops.
        return new Promise<Response>((resolve) => hanging.add(() => resolve(new Response("late", { status: 599 }))));
      }
      entry.answered = action;
      return new Response(action >= 200 && action < 300 ? "ok" : `nope ${action}`, { status: action });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}${path}`,
    received,
    delivered: () => received.filter((r) => r.answered !== null && r.answered >= 200 && r.answered < 300),
    behave(next) {
      current = next;
    },
    async stop() {
      for (const release of hanging) release();
      hanging.clear();
      await server.stop(true);
    },
  };
}
