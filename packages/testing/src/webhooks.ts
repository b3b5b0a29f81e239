/**
 * A webhook receiver for tests: a loopback HTTP endpoint subscribed to a merchant's events that
 * checks every delivery with the repository's own verifier (packages/webhooks/verify.ts), so it follows
 * the signature scheme wherever it goes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyPaySandboxSignature } from "../../webhooks/verify";
import type * as Public from "../index";
import { DEFAULT_WAIT_MS, requestJson } from "./http";

interface ReceiverOptions {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  events: string;
}

interface Arrival {
  delivery: Public.WebhookDelivery;
  verified: boolean;
}

interface Waiter {
  event: string;
  where?: (record: never) => boolean;
  resolve(delivery: Public.WebhookDelivery): void;
  reject(error: Error): void;
}

const headerOf = (request: IncomingMessage, name: string) => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(", ") : (value ?? "");
};

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startReceiver(options: ReceiverOptions): Promise<Public.WebhookReceiver> {
  const arrivals: Arrival[] = [];
  const returned = new Set<Arrival>();
  const waiters = new Set<Waiter>();

  const matches = (waiter: Pick<Waiter, "event" | "where">, arrival: Arrival) => {
    if (waiter.event !== "*" && arrival.delivery.event !== waiter.event) return false;
    try {
      return waiter.where ? waiter.where(arrival.delivery.record as never) : true;
    } catch {
      return false;
    }
  };

  /** Hands an arrival to the first waiter it matches; a bad signature fails that waiter at once. */
  const offer = (arrival: Arrival) => {
    for (const waiter of waiters) {
      if (!matches(waiter, arrival)) continue;
      waiters.delete(waiter);
      if (arrival.verified) {
        returned.add(arrival);
        waiter.resolve(arrival.delivery);
      } else {
        waiter.reject(unverifiedError(arrival));
      }
      return;
    }
  };

  const unverifiedError = (arrival: Arrival) =>
    new Error(
      `paysandbox: a ${arrival.delivery.event} webhook (delivery ${arrival.delivery.deliveryId}) arrived with a PaySandbox-Signature that does not verify with the merchant's webhook secret (header: ${arrival.delivery.headers["paysandbox-signature"] || "missing"})`,
    );

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const body = await readBody(request);
      const headers: Record<string, string> = {};
      for (const name of Object.keys(request.headers)) headers[name] = headerOf(request, name);
      const verified = verifyPaySandboxSignature(body, headers, options.webhookSecret);
      let record: Record<string, unknown> = {};
      try {
        record = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // Kept as an empty record; the raw body is in `body`.
      }
      const arrival: Arrival = {
        verified,
        delivery: {
          event: headers["paysandbox-event-name"] ?? "",
          deliveryId: headers["paysandbox-delivery-id"] ?? "",
          record,
          body,
          headers,
        },
      };
      arrivals.push(arrival);
      response.writeHead(verified ? 200 : 400, { "content-type": "text/plain" });
      response.end(verified ? "ok" : "signature does not verify");
      offer(arrival);
    })().catch(() => {
      response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  // A receiver a test forgot to close must not keep the test process alive.
  server.unref();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

  let webhookId: string;
  try {
    const webhook = await requestJson<{ id: string }>(options.baseUrl, "POST", "/webhook", {
      apiKey: options.apiKey,
      body: { target_url: url, event: options.events },
    });
    webhookId = webhook.id;
  } catch (error) {
    server.close();
    throw error;
  }

  let closed = false;
  return {
    url,
    webhookId,
    get deliveries() {
      return arrivals.filter((arrival) => arrival.verified).map((arrival) => arrival.delivery);
    },
    waitFor<T>(event: string, wait: Public.WebhookWaitOptions<T> = {}): Promise<Public.WebhookDelivery<T>> {
      const waiter = { event, where: wait.where as Waiter["where"] };
      const ready = arrivals.find((arrival) => !returned.has(arrival) && matches(waiter, arrival));
      if (ready && !ready.verified) return Promise.reject(unverifiedError(ready));
      if (ready) {
        returned.add(ready);
        return Promise.resolve(ready.delivery as Public.WebhookDelivery<T>);
      }
      const timeoutMs = wait.timeoutMs ?? DEFAULT_WAIT_MS;
      return new Promise<Public.WebhookDelivery<T>>((resolve, reject) => {
        const entry: Waiter = {
          ...waiter,
          resolve: (delivery) => {
            clearTimeout(timer);
            resolve(delivery as Public.WebhookDelivery<T>);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(entry);
          const seen = arrivals.length
            ? arrivals
                .map(
                  (arrival) =>
                    `  - ${arrival.delivery.event} ${String(arrival.delivery.record.id ?? "")}${arrival.verified ? "" : " (signature did not verify)"}${returned.has(arrival) ? " (returned before)" : ""}`,
                )
                .join("\n")
            : "  (none)";
          reject(
            new Error(
              `paysandbox: no ${event === "*" ? "" : `${event} `}webhook${wait.where ? " matching the where() test" : ""} arrived at ${url} within ${timeoutMs} ms. Arrived ${arrivals.length}:\n${seen}`,
            ),
          );
        }, timeoutMs);
        waiters.add(entry);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const waiter of waiters) waiter.reject(new Error("paysandbox: the webhook receiver was closed"));
      waiters.clear();
      try {
        await requestJson(options.baseUrl, "DELETE", `/webhook/${webhookId}`, { apiKey: options.apiKey });
      } catch {
        // The sandbox may already be stopped; the endpoint still closes.
      }
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      });
    },
  };
}
