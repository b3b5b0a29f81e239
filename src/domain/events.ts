/**
 * Record-change events. Services emit them inside the unit of work that makes the change, passing
 * its executor (`Ex`: the storage Executor, src/storage/database.ts; the domain does not import
 * storage), so a listener that writes rows (the webhook outbox) commits or rolls back with it.
 */

export const EVENT_NAMES = [
  "create_customer",
  "update_customer",
  "create_transaction",
  "update_transaction",
  "update_transaction_settled",
  "create_invoice",
  "update_invoice",
  "create_deposit",
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export interface SandboxEvent {
  merchantId: string;
  name: EventName;
  /** The record as the API returns it. */
  record: { readonly id: string };
}

/** A listener runs inside the emitter's unit of work: `ex` is its executor. */
export type EventListener<Ex extends object = object> = (ex: Ex, event: SandboxEvent) => Promise<void> | void;

export class EventBus<Ex extends object = object> {
  private readonly listeners: EventListener<Ex>[] = [];
  /** Events waiting for delivery, per unit of work whose delivery is under way. */
  private readonly queues = new Map<Ex, SandboxEvent[]>();

  /** Registers a listener; returns a function that removes it. */
  on(listener: EventListener<Ex>): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /**
   * Delivers the event to every listener in turn, awaiting each. An event a listener emits while
   * another of the same unit of work is being delivered (update_invoice caused by
   * create_transaction) is delivered right after it, so every listener sees events in
   * cause-then-effect order. Units of work emitting at the same time each keep their own queue.
   * A listener that returns no promise runs synchronously, inside this call.
   */
  async emit(ex: Ex, event: SandboxEvent): Promise<void> {
    const delivering = this.queues.get(ex);
    if (delivering) {
      delivering.push(event);
      return;
    }
    const queue: SandboxEvent[] = [event];
    this.queues.set(ex, queue);
    try {
      for (let next = queue.shift(); next; next = queue.shift()) {
        for (const listener of [...this.listeners]) {
          const pending = listener(ex, next);
          if (pending) await pending;
        }
      }
    } finally {
      this.queues.delete(ex);
    }
  }
}
