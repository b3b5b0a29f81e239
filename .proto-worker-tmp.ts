import { Database } from "bun:sqlite";
export function makeExecutor(file: string) {
  const db = new Database(file, { strict: true });
  db.exec(process.env.MEM ? "PRAGMA journal_mode = MEMORY" : "PRAGMA journal_mode = WAL"); db.exec("PRAGMA synchronous = NORMAL"); db.exec("PRAGMA foreign_keys = ON");
  const merchant = (db.query("select merchant_id from payment_methods where id like '0000bec0%' limit 1").get() as any).merchant_id;
  const pmQ = db.prepare("SELECT * FROM payment_methods WHERE id = +? AND merchant_id = +?");
  const cuQ = db.prepare("SELECT * FROM customers WHERE id = +? AND merchant_id = +?");
  const ins = db.prepare(`INSERT INTO transactions (id, merchant_id, invoice_id, customer_id, payment_method_id, method,
    type, success, total_cents, last_four, auth_id, issuer_auth_code, message, decline_code, meta, is_merchant_present,
    reference_id, source, pre_auth, receipt_email_at, created_at, updated_at)
  VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING *`);
  const begin = db.prepare("BEGIN IMMEDIATE"), commit = db.prepare("COMMIT"), sp = db.prepare('SAVEPOINT "unit"'), rel = db.prepare('RELEASE "unit"');
  return (batch: { pm: string; total: number; meta: string }[]) => {
    begin.run();
    const out = batch.map((c) => {
      sp.run();
      const pm = pmQ.get(c.pm, merchant) as any;
      if (!pm) { rel.run(); return null; }
      const cu = cuQ.get(pm.customer_id, merchant) as any;
      const now = new Date().toISOString();
      const row = ins.get(Bun.randomUUIDv7(), merchant, null, cu.id, pm.id, "card", "charge", 1, Math.round(c.total * 100), pm.card_last_four ?? "1111", "A1", "123456", "Approved", null, c.meta, 0, "A1", null, 0, null, now, now);
      rel.run();
      return { row, pm, cu };
    });
    commit.run();
    return out;
  };
}
if (!Bun.isMainThread) {
  let exec: ReturnType<typeof makeExecutor>;
  self.onmessage = (e: MessageEvent) => {
    if (e.data.open) { exec = makeExecutor(e.data.open); postMessage({ ready: true }); return; }
    postMessage({ seq: e.data.seq, out: exec(e.data.batch) });
  };
}
