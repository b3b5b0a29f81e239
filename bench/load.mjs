// The load generator of `npm run bench`: runs under Node (a separate process from the server)
// and drives one scenario with autocannon, then prints one JSON line with the results.
// Usage: node bench/load.mjs '<json spec>'   (scripts/bench.ts builds the spec)
import autocannon from "autocannon";

const spec = JSON.parse(process.argv[2]);
const json = { "content-type": "application/json" };
const auth = spec.apiKey ? { authorization: `Bearer ${spec.apiKey}` } : {};

// Payment method ids seeded by scripts/bench.ts: a prefix and a zero-padded counter.
let next = 0;
const methodId = () => `${spec.methodPrefix}${String(next++ % spec.methodCount).padStart(12, "0")}`;

function requestsOf(scenario) {
  switch (scenario) {
    case "ceiling":
    case "charge":
      return [
        {
          method: "POST",
          path: spec.path,
          headers: { ...json, ...auth },
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({ payment_method_id: methodId(), total: 10.5, meta: { reference: "bench" } }),
          }),
        },
      ];
    case "get":
      return [{ method: "GET", path: spec.path, headers: auth }];
    case "pay": {
      // What payjs pay() sends: tokenize → invoice → pay, chained through the connection's context.
      const base = `/webpayment/${spec.token}`;
      return [
        {
          method: "POST",
          path: `${base}/tokenize`,
          headers: json,
          body: JSON.stringify(spec.card),
          onResponse: (status, body, context) => {
            context.pm = status === 200 ? JSON.parse(body).id : undefined;
          },
        },
        {
          method: "POST",
          path: `${base}/invoice`,
          headers: json,
          setupRequest: (request, context) =>
            context.pm
              ? { ...request, body: JSON.stringify({ ...spec.invoice, payment_method_id: context.pm }) }
              : null,
          onResponse: (status, body, context) => {
            context.invoice = status === 200 ? JSON.parse(body).id : undefined;
          },
        },
        {
          method: "POST",
          headers: json,
          setupRequest: (request, context) =>
            context.invoice
              ? {
                  ...request,
                  path: `${base}/invoice/${context.invoice}/pay`,
                  body: JSON.stringify({ payment_method_id: context.pm }),
                }
              : null,
        },
      ];
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.duration,
  requests: requestsOf(spec.scenario),
});

process.stdout.write(
  JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    duration: result.duration,
    statusCodes: result.statusCodeStats,
  }) + "\n",
);
