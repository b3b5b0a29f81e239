/**
 * The sandbox's own controls over a merchant's data: the reset (every record gone, the clock back
 * on real time) and deleting a merchant POST /_sandbox/merchants made.
 */
import type { Database } from "../storage/database";
import { deleteMerchantRow, deleteMerchantRows } from "../storage/repositories/sandbox";
import type { MerchantService } from "./merchants";
import type { WebhookService } from "./webhooks";
import type { SandboxClock } from "./clock";

export class SandboxControl {
  constructor(
    private readonly db: Database,
    private readonly services: { merchants: MerchantService; webhooks: WebhookService },
    private readonly clock: SandboxClock,
  ) {}

  /** Deletes every row of the merchant (keys and settings stay); returns how many, by table. */
  async reset(merchantId: string): Promise<Record<string, number>> {
    const deleted = await this.db.transaction((tx) => deleteMerchantRows(tx, merchantId));
    // The webhooks are gone: the outbox must not keep sending to its cached list of them.
    this.services.webhooks.forget(merchantId);
    return deleted;
  }

  /** Deletes a merchant and every row of it (the default merchant stays). */
  async deleteMerchant(merchantId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await deleteMerchantRows(tx, merchantId);
      await deleteMerchantRow(tx, merchantId);
    });
    this.services.webhooks.forget(merchantId);
    this.clock.forget(merchantId);
    // Its keys must stop working at once: the authentication cache may hold them.
    this.services.merchants.changed();
  }
}
