/**
 * The record-change event bus (src/domain/events.ts): listeners run in order with the emitter's
 * unit of work, asynchronous ones are awaited, an event caused by another is delivered right after
 * it, and two units of work emitting at the same time keep their own order.
 */
import { describe, expect, test } from "bun:test";
import { EventBus, type SandboxEvent } from "../../src/domain/events";

const event = (name: SandboxEvent["name"], id: string): SandboxEvent => ({
  merchantId: "m",
  name,
  record: { id },
});

/** A stand-in for a unit of work's executor: the bus only uses it as the listeners' argument and a key. */
const unit = (name: string) => ({ name });

describe("EventBus", () => {
  test("every listener gets the event with the emitter's unit of work, in the order they registered", async () => {
    const bus = new EventBus<{ name: string }>();
    const seen: string[] = [];
    bus.on((ex, e) => void seen.push(`first ${ex.name} ${e.record.id}`));
    bus.on((ex, e) => void seen.push(`second ${ex.name} ${e.record.id}`));
    await bus.emit(unit("tx1"), event("create_customer", "c1"));
    expect(seen).toEqual(["first tx1 c1", "second tx1 c1"]);
  });

  test("with synchronous listeners only, delivery is done when emit returns", () => {
    const bus = new EventBus<{ name: string }>();
    const seen: string[] = [];
    bus.on((_ex, e) => void seen.push(e.record.id));
    void bus.emit(unit("tx"), event("create_customer", "c1"));
    expect(seen).toEqual(["c1"]);
  });

  test("an asynchronous listener is awaited before the next one runs and before emit resolves", async () => {
    const bus = new EventBus<{ name: string }>();
    const seen: string[] = [];
    bus.on(async (_ex, e) => {
      await Promise.resolve();
      await Promise.resolve();
      seen.push(`slow ${e.record.id}`);
    });
    bus.on((_ex, e) => void seen.push(`next ${e.record.id}`));
    await bus.emit(unit("tx"), event("create_transaction", "t1"));
    expect(seen).toEqual(["slow t1", "next t1"]);
  });

  test("an event emitted by a listener is delivered to everyone right after the event that caused it", async () => {
    const bus = new EventBus<{ name: string }>();
    const seen: string[] = [];
    bus.on(async (ex, e) => {
      seen.push(`invoices saw ${e.name}`);
      if (e.name === "create_transaction") await bus.emit(ex, event("update_invoice", "i1"));
    });
    bus.on((_ex, e) => void seen.push(`outbox saw ${e.name}`));
    await bus.emit(unit("tx"), event("create_transaction", "t1"));
    expect(seen).toEqual([
      "invoices saw create_transaction",
      "outbox saw create_transaction",
      "invoices saw update_invoice",
      "outbox saw update_invoice",
    ]);
  });

  test("two units of work emitting at the same time each get their own events, in their own order", async () => {
    const bus = new EventBus<{ name: string }>();
    const seen: string[] = [];
    bus.on(async (ex, e) => {
      await Promise.resolve();
      seen.push(`${ex.name}:${e.record.id}`);
      if (e.name === "create_transaction") await bus.emit(ex, event("update_invoice", `${e.record.id}-invoice`));
    });
    const a = unit("a");
    const b = unit("b");
    await Promise.all([bus.emit(a, event("create_transaction", "a1")), bus.emit(b, event("create_transaction", "b1"))]);
    expect(seen.filter((s) => s.startsWith("a:"))).toEqual(["a:a1", "a:a1-invoice"]);
    expect(seen.filter((s) => s.startsWith("b:"))).toEqual(["b:b1", "b:b1-invoice"]);
  });

  test("a listener that throws rejects the emit (so the unit of work rolls back), and the bus keeps working", async () => {
    const bus = new EventBus<{ name: string }>();
    let fail = true;
    const seen: string[] = [];
    bus.on((_ex, e) => {
      if (fail) throw new Error("outbox is down");
      seen.push(e.record.id);
    });
    const tx = unit("tx");
    expect(bus.emit(tx, event("create_customer", "c1"))).rejects.toThrow("outbox is down");
    fail = false;
    await bus.emit(tx, event("create_customer", "c2"));
    expect(seen).toEqual(["c2"]);
  });

  test("a removed listener gets nothing more", async () => {
    const bus = new EventBus<{ name: string }>();
    const seen: string[] = [];
    const off = bus.on((_ex, e) => void seen.push(e.record.id));
    await bus.emit(unit("tx"), event("create_customer", "c1"));
    off();
    await bus.emit(unit("tx"), event("create_customer", "c2"));
    expect(seen).toEqual(["c1"]);
  });
});
