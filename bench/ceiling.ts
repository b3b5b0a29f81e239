/**
 * The ceiling `npm run bench` compares the sandbox with: a bare Bun.serve JSON endpoint that parses
 * the same POST body and answers a small JSON object, with no routing, validation or storage.
 * Prints "port <n>" once listening.
 */
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const body = request.method === "POST" ? ((await request.json()) as Record<string, unknown>) : {};
    return Response.json({ id: crypto.randomUUID(), success: true, total: body.total ?? null });
  },
});
process.stdout.write(`port ${server.port}\n`);
process.on("SIGTERM", () => {
  void server.stop(true);
  process.exit(0);
});
