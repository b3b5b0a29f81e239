import { Elysia, t } from "elysia";
import {
  ACH_RETURN_REASONS,
  DISPUTE_REASONS,
  TEST_BANK,
  TEST_CARDS,
  type Outcome,
} from "../../../../packages/rules/test-data";
import { DECLINE_CODES, DECLINE_REASONS } from "../../../../packages/rules/declines";
import type { AppDeps } from "../../deps";
import { ErrorBody, Nullable } from "../../../domain/schemas/records";
import { loopbackOnly } from "./control";

/** What an outcome does at charge: the decline code, message and retryability (null/false on approve). */
const Result = {
  outcome: t.String({ description: "approve, or the decline code the charge gets" }),
  decline_code: Nullable(t.String()),
  message: Nullable(t.String({ description: "The processor's message on the declined transaction" })),
  retryable: t.Boolean({ description: "Whether a retry of the declined charge may succeed" }),
};
const CardUpdate = t.Object(
  {
    days: t.Number({ description: "At the first midnight UTC this many days after the card is saved (sandbox clock)" }),
    expiry_years: Nullable(t.Number({ description: "The new expiry: the same month, this many years later" })),
    last_four: Nullable(t.String({ description: "The last four digits of the reissued card" })),
  },
  { description: "What the brand's account updater changes on the saved card, and when (null: nothing)" },
);
const CardDispute = t.Object(
  {
    reason: t.String({
      description:
        "The dispute's reason: FRAUD, PRODUCT_NOT_RECEIVED, DUPLICATE, CREDIT_NOT_PROCESSED, SUBSCRIPTION_CANCELED",
    }),
    reason_description: t.String(),
    days: t.Number({
      description: "Opens at the midnight UTC this many days after the charge settled (sandbox clock)",
    }),
  },
  {
    description:
      "A card whose settled charges the cardholder disputes (null: never disputed; docs/testing-failures.md, Disputes)",
  },
);
const AchReturn = t.Object(
  {
    code: t.String({ description: "The ACH return code: R01, R02, R03, R04, R10, R29" }),
    reason: t.String(),
    business_days: t.Number({
      description: "Returned when this business day after the settlement day ends (0: at settlement, before payout)",
    }),
  },
  { description: "An account that approves and is returned after settlement (null: never returned)" },
);
const TestCard = t.Object({
  number: t.String(),
  brand: t.String(),
  funding: t.Union([t.Literal("credit"), t.Literal("debit"), t.Literal("prepaid")], {
    description: "How the card is funded (its payment method's bin_type): only credit cards are surcharged",
  }),
  ...Result,
  description: t.String(),
  update: Nullable(CardUpdate),
  dispute: Nullable(CardDispute),
});
const TestAccount = t.Object({
  routing: t.String(),
  account: t.String(),
  ...Result,
  description: t.String(),
  ach_return: Nullable(AchReturn),
});
const Reason = t.Object({
  code: t.String(),
  message: t.String(),
  retryable: t.Boolean(),
  method: t.Union([t.Literal("card"), t.Literal("bank")]),
  description: t.String(),
});

function result(outcome: Outcome) {
  if (outcome === "approve") return { outcome, decline_code: null, message: null, retryable: false };
  const reason = DECLINE_REASONS[outcome];
  return { outcome, decline_code: outcome, message: reason.message, retryable: reason.retryable };
}

/** The body of GET /_sandbox/test-cards: built once, it never changes. */
function listing() {
  return {
    cards: TEST_CARDS.map(({ update, dispute, ...card }) => ({
      ...card,
      ...result(card.outcome),
      update: update
        ? { days: update.days, expiry_years: update.expiryYears ?? null, last_four: update.lastFour ?? null }
        : null,
      dispute: dispute
        ? { reason: dispute.reason, reason_description: DISPUTE_REASONS[dispute.reason], days: dispute.days }
        : null,
    })),
    bank: {
      routing: TEST_BANK.routing,
      approvingAccount: TEST_BANK.approvingAccount,
      description: TEST_BANK.description,
      accounts: TEST_BANK.accounts.map((entry) => ({
        routing: TEST_BANK.routing,
        account: entry.account,
        ...result(entry.outcome),
        description: entry.description,
        ach_return: entry.achReturn
          ? {
              code: entry.achReturn.code,
              reason: ACH_RETURN_REASONS[entry.achReturn.code],
              business_days: entry.achReturn.businessDays,
            }
          : null,
      })),
    },
    reasons: DECLINE_CODES.map((code) => ({ code, ...DECLINE_REASONS[code] })),
  };
}

/** `/_sandbox/test-cards`: the test cards and bank accounts, with what each does, and every decline reason. */
export function testCardRoutes(deps: AppDeps) {
  const body = listing();
  return new Elysia({ prefix: "/_sandbox", tags: ["Sandbox control"] })
    .use(loopbackOnly(deps))
    .get("/test-cards", () => body, {
      response: {
        200: t.Object({
          cards: t.Array(TestCard),
          bank: t.Object({
            routing: t.String(),
            approvingAccount: t.String(),
            description: t.String(),
            accounts: t.Array(TestAccount),
          }),
          reasons: t.Array(Reason, { description: "Every decline code (docs/testing-failures.md)" }),
        }),
        403: ErrorBody,
      },
      detail: { summary: "The test cards and bank accounts, with what each does, and every decline reason" },
    });
}
