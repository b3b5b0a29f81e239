import { Elysia, t } from "elysia";
import { makeExecutor } from "./.proto-worker-tmp.ts";
const mode = process.argv[2]; const file = process.argv[3];
type Cmd = { pm: string; total: number; meta: string };
let pending: Cmd[] = []; let waiters: ((r: any) => void)[] = []; let scheduled = false;
let send: (batch: Cmd[], ws: ((r: any) => void)[]) => void;
if (mode === "inline") {
  const exec = makeExecutor(file);
  send = (batch, ws) => { const out = exec(batch); out.forEach((r, i) => ws[i]!(r)); };
} else {
  const worker = new Worker(new URL("./.proto-worker-tmp.ts", import.meta.url).href);
  const inflight = new Map<number, ((r: any) => void)[]>(); let seq = 0;
  worker.onmessage = (e) => { if (e.data.ready) return; const ws = inflight.get(e.data.seq)!; inflight.delete(e.data.seq); e.data.out.forEach((r: any, i: number) => ws[i]!(r)); };
  worker.postMessage({ open: file }); await new Promise((r) => setTimeout(r, 300));
  send = (batch, ws) => { const s = ++seq; inflight.set(s, ws); worker.postMessage({ seq: s, batch }); };
}
function exec(c: Cmd): Promise<any> {
  return new Promise((resolve) => {
    pending.push(c); waiters.push(resolve);
    if (!scheduled) { scheduled = true; setImmediate(() => { scheduled = false; const b = pending, w = waiters; pending = []; waiters = []; send(b, w); }); }
  });
}
const card = t.Object({ id: t.String(), merchant_id: t.String(), customer_id: t.String(), payment_method_id: t.String(), type: t.String(), success: t.Boolean(), total: t.Number(), meta: t.Record(t.String(), t.Unknown()), created_at: t.String(), updated_at: t.String(), customer: t.Object({ id: t.String(), firstname: t.Union([t.String(), t.Null()]), lastname: t.Union([t.String(), t.Null()]), email: t.Union([t.String(), t.Null()]) }), payment_method: t.Object({ id: t.String(), method: t.String(), last_four: t.Union([t.String(), t.Null()]) }) });
new Elysia().post("/charge", async ({ body, headers, status }) => {
  if (headers.authorization !== "Bearer sandbox_api_key") return status(401, { message: "no" } as any);
  const r = await exec({ pm: body.payment_method_id, total: body.total, meta: JSON.stringify(body.meta ?? {}) });
  if (!r) return status(404, { message: "nf" } as any);
  const { row, pm, cu } = r;
  return { id: row.id, merchant_id: row.merchant_id, customer_id: row.customer_id, payment_method_id: row.payment_method_id, type: row.type, success: row.success === 1, total: row.total_cents / 100, meta: JSON.parse(row.meta), created_at: row.created_at, updated_at: row.updated_at, customer: { id: cu.id, firstname: cu.firstname ?? null, lastname: cu.lastname ?? null, email: cu.email ?? null }, payment_method: { id: pm.id, method: pm.method, last_four: pm.card_last_four ?? null } };
}, { body: t.Object({ payment_method_id: t.String(), total: t.Number(), meta: t.Optional(t.Record(t.String(), t.Unknown())) }), response: { 200: card } }).listen({ hostname: "127.0.0.1", port: 7402 });
console.log("ready");
