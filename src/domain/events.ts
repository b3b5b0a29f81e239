/**
 * Record-change events. Services emit them inside the SQLite transaction that makes the change,
 * so a listener that writes rows (the webhook outbox) commits or rolls back with it.
 * Listeners must be synchronous.
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

export type EventListener = (event: SandboxEvent) => void;

export class EventBus {
  private readonly listeners: EventListener[] = [];

  /** Registers a listener; returns a function that removes it. */
  on(listener: EventListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  private readonly queue: SandboxEvent[] = [];
  private delivering = false;

  /**
   * Delivers the event to every listener, synchronously. An event a listener emits while
   * another is being delivered (update_invoice caused by create_transaction) is delivered right
   * after it, so every listener sees events in cause-then-effect order.
   */
  emit(event: SandboxEvent): void {
    this.queue.push(event);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) {
        for (const listener of this.listeners) listener(next);
      }
    } finally {
      this.delivering = false;
      this.queue.length = 0;
    }
  }
}
