/**
 * The e-mail a merchant gets when a cardholder disputes one of its payments: what was disputed,
 * why, what was withdrawn, and by when to answer (kind `dispute`, in the outbox).
 */
import { html } from "../../lib/html";
import type { DisputeRecord } from "../../domain/schemas/disputes";
import type { MerchantRow } from "../merchants";
import { SENDER_ADDRESS, type OutgoingEmail } from "../mail/mailer";

const dollars = (amount: number) => `$${amount.toFixed(2)}`;

/** Where a merchant without an e-mail address (the default one) gets its dispute notices: a reserved test domain. */
export const MERCHANT_FALLBACK_ADDRESS = "merchant@paysandbox.localhost";

export function openedMessage(merchant: MerchantRow, dispute: DisputeRecord): OutgoingEmail {
  const lines = [
    `A cardholder disputed a payment of ${dollars(dispute.amount)} (transaction ${dispute.transaction_id}).`,
    `Reason: ${dispute.reason} (${dispute.reason_description}).`,
    `${dollars(dispute.amount)} and the dispute fee of ${dollars(dispute.fee)} are withdrawn from your next deposit.`,
    `Respond by ${dispute.respond_by} UTC: upload evidence (POST /file/dispute) and submit it (POST /underwriting/dispute/${dispute.id}/submit). A dispute not answered by then is lost.`,
  ];
  const body = html`<!doctype html>
    <html>
      <body>
        <h1>A payment was disputed</h1>
        ${lines.map((line) => html`<p>${line}</p>`)}
        <p>Dispute: <code>${dispute.id}</code></p>
      </body>
    </html>`;
  return {
    merchantId: merchant.id,
    kind: "dispute",
    from: { name: "PaySandbox disputes", address: SENDER_ADDRESS },
    to: merchant.email.trim() || MERCHANT_FALLBACK_ADDRESS,
    subject: `Dispute opened: ${dollars(dispute.amount)} (${dispute.reason}), respond by ${dispute.respond_by.slice(0, 10)}`,
    text: `${lines.join("\n\n")}\n\nDispute: ${dispute.id}\n`,
    html: body.toString(),
    transactionId: dispute.transaction_id,
  };
}
