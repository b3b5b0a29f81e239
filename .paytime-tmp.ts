import { buildDeps, composeApp } from "./src/entry/app";
import { around } from "./src/storage/sqlite/group-commit";
import { openSqlite } from "./src/storage/sqlite/database";
import { memoryLogger } from "./src/lib/logger";
import { rmSync } from "node:fs";
for (const s of ["", "-wal", "-shm"]) rmSync("/tmp/ref/pay.sqlite" + s, { force: true });
const storage = openSqlite("/tmp/ref/pay.sqlite", { groupCommit: true });
const timing = new Map<string, [number, number]>();
{
  const raw = storage.raw as any;
  for (const name of ["query", "prepare"]) {
    const orig = raw[name].bind(raw);
    raw[name] = (text: string, ...rest: any[]) => {
      const st = orig(text, ...rest);
      const key = text.trim().split("\n")[0].slice(0, 90);
      for (const r of ["run", "get", "all"]) {
        const o = st[r].bind(st);
        st[r] = (...a: any[]) => { const t = Bun.nanoseconds(); try { return o(...a); } finally { const e = timing.get(key) ?? [0, 0]; e[0]++; e[1] += Bun.nanoseconds() - t; timing.set(key, e); } };
      }
      return st;
    };
  }
}
const deps = await buildDeps({ db: storage, log: memoryLogger(), publicUrl: "http://localhost:7290" });
const app = composeApp(deps);
const m = await deps.services.merchants.getDefault();
const call = async (path: string, body?: unknown) => {
  const r = await around(storage, () => app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })));
  return { status: r.status, body: (await r.json()) as any };
};
const CARD = { method: "card", card_number: "4111111111111111", card_cvv: "123", card_exp: "1230", person_name: "Bench Mark", firstname: "Bench", lastname: "Mark", email: "bench@example.com", phone: "5555550100", address_1: "1 Load Street", address_city: "Orlando", address_state: "FL", address_zip: "32822" };
const { card_number, card_cvv, card_exp, method, ...CUSTOMER } = CARD;
const base = `/webpayment/${m.web_payments_token}`;
const spent = { tokenize: 0, invoice: 0, pay: 0 };
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
const N = Number(process.argv[2] ?? 2000), C = 10;
async function one() {
  let t = cpu(); const tok = await call(`${base}/tokenize`, CARD); spent.tokenize += cpu() - t;
  t = cpu(); const inv = await call(`${base}/invoice`, { ...CUSTOMER, total: 10.5, meta: { reference: "bench" }, payment_method_id: tok.body.id }); spent.invoice += cpu() - t;
  t = cpu(); const p = await call(`${base}/invoice/${inv.body.id}/pay`, { payment_method_id: tok.body.id }); spent.pay += cpu() - t;
  if (p.status !== 200) throw new Error(JSON.stringify(p.body));
}
for (let i = 0; i < 200; i++) await one();
spent.tokenize = spent.invoice = spent.pay = 0; timing.clear();
const t0 = cpu();
await Promise.all(Array.from({ length: C }, async () => { for (let i = 0; i < N / C; i++) await one(); }));
const total = cpu() - t0;
console.log(`per pay: total ${(total / N).toFixed(0)} µs (batches ${storage.batches})`);
let sum = 0; for (const [k, [n, ns]] of [...timing].sort((a, b) => b[1][1] - a[1][1])) { sum += ns; console.log(`${(ns / N / 1000).toFixed(1).padStart(6)} µs/pay  ${(n / N).toFixed(1)}×  ${(ns / n / 1000).toFixed(1)} µs each  ${k}`); }
console.log(`SQL total ${(sum / N / 1000).toFixed(0)} µs/pay`);
process.exit(0);
