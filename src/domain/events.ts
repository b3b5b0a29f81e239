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
  "create_payment_method",
  "update_payment_method",
  "create_invoice",
  "update_invoice",
  "send_invoice",
  "create_deposit",
  "create_item",
  "update_item",
  "delete_item",
  "create_webhook",
  "delete_webhook",
  "create_scheduled_invoice",
  "update_scheduled_invoice",
  "delete_scheduled_invoice",
  "create_dispute",
  "update_dispute",
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export interface SandboxEvent {
  merchantId: string;
  name: EventName;
  /** The record as the API returns it. */
  record: { readonly id: string };
  /**
   * On a transaction of an invoice: the emitter brings the invoice in step itself, with what the
   * change returned (InvoiceService.pay()), so the invoice listener leaves this event alone.
   */
  invoiceSyncedByCaller?: true;
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
  emit(ex: Ex, event: SandboxEvent): Promise<void> {
    const delivering = this.queues.get(ex);
    if (delivering) {
      delivering.push(event);
      return DONE;
    }
    const queue: SandboxEvent[] = [event];
    this.queues.set(ex, queue);
    return this.deliver(ex, queue);
  }

  /**
   * Delivers the queue in order. Listeners that return no promise run synchronously: an event
   * nobody waits on (most charges) costs no promise of its own.
   */
  private deliver(ex: Ex, queue: SandboxEvent[]): Promise<void> {
    try {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const listeners = [...this.listeners];
        for (let at = 0; at < listeners.length; at++) {
          const pending = listeners[at]!(ex, next);
          if (pending) return this.resume(ex, queue, next, listeners, at + 1, pending);
        }
      }
    } catch (error) {
      this.queues.delete(ex);
      return Promise.reject(error);
    }
    this.queues.delete(ex);
    return DONE;
  }

  /** Continues a delivery after a listener's promise: the rest of its listeners, then the queue. */
  private async resume(
    ex: Ex,
    queue: SandboxEvent[],
    current: SandboxEvent,
    listeners: EventListener<Ex>[],
    from: number,
    pending: Promise<void>,
  ): Promise<void> {
    try {
      await pending;
      for (let at = from; at < listeners.length; at++) await listeners[at]!(ex, current);
      for (let next = queue.shift(); next; next = queue.shift()) {
        for (const listener of [...this.listeners]) await listener(ex, next);
      }
    } finally {
      this.queues.delete(ex);
    }
  }
}

const DONE: Promise<void> = Promise.resolve();
