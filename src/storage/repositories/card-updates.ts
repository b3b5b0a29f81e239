/**
 * Card updates: the account updater of a test card's brand (packages/rules/test-data.ts, `update`)
 * changes a saved card at a sandbox time. The pending change is on the payment method
 * (card_update_at, card_update: migration 043); applying it clears card_update_at.
 */
import { sql, type Executor } from "../database";
import { distinctMerchants } from "./merchant-scan";
import type { PaymentMethodRow } from "./payment-methods";

/** card_update_at of the merchant's earliest pending card update, or null. */
export async function earliestCardUpdate(ex: Executor, merchantId: string): Promise<string | null> {
  const row = await ex.get<{ at: string | null }>(
    sql`SELECT MIN(card_update_at) AS at FROM payment_methods
        WHERE merchant_id = ${merchantId} AND card_update_at IS NOT NULL`,
  );
  return row?.at ?? null;
}

/** The merchant's payment methods whose update is due by `at`, in time order. */
export function dueCardUpdates(ex: Executor, merchantId: string, at: string): Promise<PaymentMethodRow[]> {
  return ex.all(
    sql`SELECT * FROM payment_methods WHERE merchant_id = ${merchantId} AND card_update_at IS NOT NULL
          AND card_update_at <= ${at}
        ORDER BY card_update_at, id`,
  );
}

/** Applies an update (null values leave a field as it is) and clears it; a deleted card is only cleared. */
export async function applyCardUpdate(
  ex: Executor,
  id: string,
  change: { card_exp: string | null; card_last_four: string | null },
  at: string,
): Promise<void> {
  await ex.run(
    sql`UPDATE payment_methods SET card_exp = COALESCE(${change.card_exp}, card_exp),
          card_last_four = COALESCE(${change.card_last_four}, card_last_four), card_update_at = NULL, updated_at = ${at}
        WHERE id = ${id}`,
  );
}

/** Merchants with a pending card update (one index seek per merchant found). */
export function merchantsWithCardUpdates(ex: Executor): Promise<string[]> {
  return distinctMerchants(ex, "payment_methods", sql`card_update_at IS NOT NULL`);
}
