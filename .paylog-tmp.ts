import { buildDeps, composeApp } from "./src/entry/app";
import { around } from "./src/storage/sqlite/group-commit";
import { openSqlite } from "./src/storage/sqlite/database";
import { countStatements } from "./src/storage/sqlite/statement-counter";
import { memoryLogger } from "./src/lib/logger";
const storage = openSqlite(":memory:", { groupCommit: true });
const counter = countStatements(storage.raw);
const deps = await buildDeps({ db: storage, log: memoryLogger(), publicUrl: "http://localhost:7290" });
const app = composeApp(deps);
const m = await deps.services.merchants.getDefault();
const call = async (method: string, path: string, body?: unknown) => {
  const r = await around(storage, () => app.handle(new Request(`http://localhost${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) })));
  return { status: r.status, body: (await r.json()) as any };
};
const CARD = { method: "card", card_number: "4111111111111111", card_cvv: "123", card_exp: "1230", person_name: "Bench Mark", firstname: "Bench", lastname: "Mark", email: "bench@example.com", phone: "5555550100", address_1: "1 Load Street", address_city: "Orlando", address_state: "FL", address_zip: "32822" };
const { card_number, card_cvv, card_exp, method, ...CUSTOMER } = CARD;
for (let round = 0; round < 2; round++) {
  counter.take();
  const tok = await call("POST", `/webpayment/${m.web_payments_token}/tokenize`, CARD);
  const t = counter.take();
  const inv0 = await call("POST", `/webpayment/${m.web_payments_token}/invoice`, { ...CUSTOMER, total: 10.5, meta: { reference: "bench" }, payment_method_id: tok.body.id });
  const i = counter.take(); const inv = inv0; 
  const pay = await call("POST", `/webpayment/${m.web_payments_token}/invoice/${inv.body.id}/pay`, { payment_method_id: tok.body.id });
  const p = counter.take();
  if (round === 1) for (const [n, c] of [["tokenize", t], ["invoice", i], ["pay", p]] as const) { console.log(`--- ${n} ${c.total} (r${c.read} w${c.write} c${c.control}) status`, n === "pay" ? pay.status : ""); for (const l of c.log) console.log("   ", l); }
}
process.exit(0);
