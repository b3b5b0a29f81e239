/** The record pages: the overview, transactions, customers, invoices and deposits, each list with its filters. */
import { Elysia, t } from "elysia";
import { emptyState, shortId } from "../layout";
import { overviewPage } from "../pages/account";
import { customerPage, customersPage } from "../pages/customers";
import { firstPaymentSteps, transactionRows, transactionsPage } from "../pages/transactions";
import { transactionPage } from "../pages/transaction-detail";
import { depositsPage } from "../pages/deposits";
import { invoicePage, invoicesPage } from "../pages/invoices";
import { emailSummaryTable } from "../pages/outbox";
import { deliveriesTable } from "../pages/webhooks";
import { transactionDispute } from "../pages/disputes";
import { settingsOf } from "../../../services/merchants";
import { invoiceCustomFields } from "../../../services/merchant-options";
import { TRANSACTION_STATES, type TransactionState } from "../../../services/transactions";
import { dashboardList, dashboardPage, dashboardPlugin, dateOf, ID, pick, text, type DashboardKit } from "./kit";

/** `/` and the record pages under /dashboard. */
export function recordPages(kit: DashboardKit) {
  const { deps, service, respond, notFoundPage } = kit;
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
    .use(dashboardPlugin(kit))
    .get("/", async ({ merchant, request }) => {
      const recent = await service.transactions(merchant.id, {}, dashboardPage());
      const stats = await service.transactionTotals(merchant.id);
      const customers = (await service.customers(merchant.id, dashboardPage())).total;
      return respond(merchant, "/", request, {
        title: "Overview",
        body: overviewPage(
          merchant,
          { transactions: stats.n, approvedCents: stats.approvedCents, declined: stats.declined, customers },
          deps.clock.timestamp(merchant.id),
          recent.total
            ? transactionRows(recent.rows.slice(0, 10))
            : emptyState(
                "No transactions yet.",
                firstPaymentSteps(deps.publicUrl, merchant.web_payments_token, merchant.api_key),
              ),
          deps.publicUrl,
        ),
      });
    })
    .get(
      "/dashboard/transactions",
      async ({ merchant, query, request }) => {
        const filters = {
          keywords: text(query.keywords),
          startDate: dateOf(query.startDate),
          endDate: dateOf(query.endDate),
          type: pick(query.type, ["charge", "pre_auth", "capture", "void", "refund", "credit"] as const),
          success: pick(query.success, ["true", "false"] as const),
          method: pick(query.method, ["card", "bank"] as const),
          customer_id: text(query.customer_id),
          batch_id: text(query.batch_id),
          state: pick(query.state, Object.keys(TRANSACTION_STATES) as TransactionState[]),
        };
        const page = await dashboardList(query.page, request, (page) =>
          service.transactions(
            merchant.id,
            {
              keywords: filters.keywords,
              startDate: filters.startDate,
              endDate: filters.endDate,
              type: filters.type,
              success: filters.success === undefined ? undefined : filters.success === "true",
              method: filters.method,
              customerId: filters.customer_id,
              batchId: filters.batch_id,
              state: filters.state,
            },
            page,
          ),
        );
        return respond(merchant, "/dashboard/transactions", request, {
          title: "Transactions",
          body: transactionsPage(
            page,
            filters,
            firstPaymentSteps(deps.publicUrl, merchant.web_payments_token, merchant.api_key),
          ),
        });
      },
      {
        query: t.Object({
          keywords: t.Optional(t.String({ maxLength: 200 })),
          startDate: t.Optional(t.String({ maxLength: 30 })),
          endDate: t.Optional(t.String({ maxLength: 30 })),
          type: t.Optional(t.String({ maxLength: 30 })),
          success: t.Optional(t.String({ maxLength: 10 })),
          method: t.Optional(t.String({ maxLength: 10 })),
          customer_id: t.Optional(t.String({ maxLength: 100 })),
          batch_id: t.Optional(t.String({ maxLength: 100 })),
          state: t.Optional(t.String({ maxLength: 30 })),
          page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
        }),
      },
    )
    .get(
      "/dashboard/transactions/:id",
      async ({ merchant, params, request }) => {
        const transaction = await service.transaction(merchant.id, params.id);
        const path = "/dashboard/transactions";
        if (!transaction) return notFoundPage(merchant, path, request, "Transaction");
        const deliveries = (await service.deliveries(merchant.id, dashboardPage(), { recordId: transaction.id })).rows;
        const emails = (
          await service.emails(merchant.id, dashboardPage(), undefined, {
            transactionId: transaction.id,
            invoiceId: transaction.invoice_id || undefined,
          })
        ).rows;
        const invoiceId = transaction.invoice_id ? encodeURIComponent(transaction.invoice_id) : null;
        return respond(merchant, path, request, {
          title: `Transaction ${shortId(transaction.id)}`,
          body: transactionPage(transaction, {
            invoicePath: invoiceId ? `/dashboard/invoices/${invoiceId}` : null,
            hosted: invoiceId ? { invoice: `/hosted/invoice/${invoiceId}`, pay: `/hosted/pay/${invoiceId}` } : null,
            deliveries: deliveriesTable(deliveries, `/dashboard/transactions/${encodeURIComponent(transaction.id)}`),
            emails: emailSummaryTable(emails),
            faults: deps.services.faults.firedFor(merchant.id, transaction.id),
            adjustments: await service.adjustmentsOf(merchant.id, transaction.id),
            dispute: transactionDispute(await deps.services.disputes.ofTransaction(merchant.id, transaction.id)),
          }),
        });
      },
      { params: ID },
    )
    .get(
      "/dashboard/customers",
      async ({ merchant, query, request }) =>
        respond(merchant, "/dashboard/customers", request, {
          title: "Customers",
          body: customersPage(
            await dashboardList(query.page, request, (page) =>
              service.customers(merchant.id, page, text(query.keywords)),
            ),
            text(query.keywords) ?? "",
          ),
        }),
      {
        query: t.Object({
          keywords: t.Optional(t.String({ maxLength: 200 })),
          page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
        }),
      },
    )
    .get(
      "/dashboard/customers/:id",
      async ({ merchant, params, request }) => {
        const found = await service.customer(merchant.id, params.id);
        const path = "/dashboard/customers";
        if (!found) return notFoundPage(merchant, path, request, "Customer");
        const list = await dashboardList(1, request, (page) =>
          service.transactions(merchant.id, { customerId: params.id }, page),
        );
        return respond(merchant, path, request, {
          title: found.customer.firstname || "Customer",
          body: customerPage(found.customer, found.paymentMethods, list),
        });
      },
      { params: ID },
    )
    .get(
      "/dashboard/invoices",
      async ({ merchant, query, request }) => {
        const filters = {
          status: text(query.status)?.toUpperCase(),
          customer_id: text(query.customer_id),
          startDate: dateOf(query.startDate),
          endDate: dateOf(query.endDate),
        };
        const page = await dashboardList(query.page, request, (page) =>
          service.invoices(merchant.id, page, {
            status: filters.status,
            customerId: filters.customer_id,
            startDate: filters.startDate,
            endDate: filters.endDate,
          }),
        );
        return respond(merchant, "/dashboard/invoices", request, {
          title: "Invoices",
          body: invoicesPage(page, filters),
        });
      },
      {
        query: t.Object({
          status: t.Optional(t.String({ maxLength: 30 })),
          customer_id: t.Optional(t.String({ maxLength: 100 })),
          startDate: t.Optional(t.String({ maxLength: 30 })),
          endDate: t.Optional(t.String({ maxLength: 30 })),
          page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
        }),
      },
    )
    .get(
      "/dashboard/invoices/:id",
      async ({ merchant, params, request }) => {
        const invoice = await service.invoice(merchant.id, params.id);
        const path = "/dashboard/invoices";
        if (!invoice) return notFoundPage(merchant, path, request, "Invoice");
        const emails = emailSummaryTable(
          (await service.emails(merchant.id, dashboardPage(), undefined, { invoiceId: invoice.id })).rows,
        );
        return respond(merchant, path, request, {
          title: `Invoice ${shortId(invoice.id)}`,
          // Every custom field, invisible ones too: this page is the merchant's.
          body: invoicePage(
            invoice,
            emails,
            invoiceCustomFields(
              invoice.meta,
              merchant.advanced_customization === 1,
              settingsOf(merchant).custom_fields,
            ),
            await service.outsidePayments(merchant.id, invoice.id),
          ),
        });
      },
      { params: ID },
    )
    .get(
      "/dashboard/deposits",
      async ({ merchant, query, request }) =>
        respond(merchant, "/dashboard/deposits", request, {
          title: "Deposits",
          body: depositsPage(
            await dashboardList(query.page, request, (page) => service.deposits(merchant.id, page)),
            await service.adjustments(merchant.id),
          ),
        }),
      { query: t.Object({ page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })) }) },
    );
}
