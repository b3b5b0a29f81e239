/**
 * The "try it" page's script (served as /dashboard/assets/try.js): takes a payment with payjs
 * itself, exactly as an integrator's page would — new PayJs(token, ...), showCardForm(), pay().
 */
export {};

interface PayJsErrorLike {
  code?: string;
  message?: string;
  fields?: Record<string, string[]>;
  invoice?: { id: string; child_transactions?: { id: string }[] };
}

const root = document.getElementById("try-it") as HTMLElement;
const form = document.getElementById("try-form") as HTMLFormElement;
const payButton = document.getElementById("try-pay") as HTMLButtonElement;
const result = document.getElementById("try-result") as HTMLElement;
const status = document.getElementById("try-status") as HTMLElement;

function show(kind: "ok" | "bad" | "info", lines: (string | [string, string])[]): void {
  result.replaceChildren();
  const box = document.createElement("div");
  box.className = kind === "bad" ? "flash bad" : "flash";
  box.dataset.kind = kind;
  for (const line of lines) {
    const p = document.createElement("div");
    if (typeof line === "string") p.textContent = line;
    else {
      const a = document.createElement("a");
      a.href = line[1];
      a.textContent = line[0];
      p.append(a);
    }
    box.append(p);
  }
  result.append(box);
}

/**
 * The look of this page's own fields (the month input's computed style), for payjs's `style`
 * option: what an integrator passes so the card frames match the rest of the form.
 */
function fieldStyle(): Record<string, string> {
  const field = getComputedStyle(form.querySelector("input[name=month]")!);
  return {
    fontFamily: field.fontFamily,
    fontSize: field.fontSize,
    lineHeight: field.lineHeight,
    color: field.color,
    padding: field.padding,
    border: `${field.borderTopWidth} ${field.borderTopStyle} ${field.borderTopColor}`,
    borderRadius: field.borderTopLeftRadius,
    backgroundColor: field.backgroundColor,
  };
}

const PayJs = (window as unknown as { PayJs?: new (token: string, options: unknown) => any }).PayJs;
if (!PayJs) {
  status.textContent = "payjs.js did not load.";
} else {
  const payjs = new PayJs(root.dataset.token ?? "", {
    number: { id: "card-number", format: "prettyFormat", placeholder: "4111 1111 1111 1111", style: fieldStyle() },
    cvv: { id: "card-cvv", placeholder: "CVV", style: fieldStyle() },
  });
  payjs.on("card_form_complete", () => {
    status.textContent = "Card complete.";
    payButton.disabled = false;
  });
  payjs.on("card_form_uncomplete", (message: { card_type: string | null }) => {
    status.textContent = message.card_type ? `Typing a ${message.card_type} card…` : "Type a test card.";
  });
  payjs.showCardForm().then(
    (handler: { setTestPan(pan: string): Promise<void>; setTestCvv(cvv: string): Promise<void> }) => {
      status.textContent = "Card form ready.";
      root.dataset.ready = "true";
      for (const button of document.querySelectorAll<HTMLButtonElement>("button[data-test-pan]")) {
        button.disabled = false;
        button.addEventListener("click", () => {
          void handler
            .setTestPan(button.dataset.testPan ?? "")
            .then(() => handler.setTestCvv(button.dataset.testCvv ?? "123"));
        });
      }
    },
    (error: PayJsErrorLike) => {
      status.textContent = `The card form did not load: ${error.code ?? ""} ${error.message ?? error}`;
    },
  );

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void pay();
  });

  /** Pays the invoice with the card form's card and shows the answer. */
  async function pay(): Promise<void> {
    const data = Object.fromEntries(new FormData(form)) as Record<string, string>;
    const [month, year] = [data.month, data.year];
    payButton.disabled = true;
    show("info", ["Paying…"]);
    try {
      const invoice = await payjs.pay({ ...data, method: "card", month, year, send_receipt: true });
      const transaction = invoice.child_transactions?.[0];
      show("ok", [
        `Paid: invoice ${invoice.id} is ${invoice.status}.`,
        ...(transaction
          ? [["See the transaction", `/dashboard/transactions/${transaction.id}`] as [string, string]]
          : []),
        ["See the receipt e-mail", "/dashboard/emails"],
      ]);
    } catch (caught) {
      const error = caught as PayJsErrorLike;
      const fields = Object.entries(error.fields ?? {}).map(([name, messages]) => `${name}: ${messages.join(" ")}`);
      const transaction = error.invoice?.child_transactions?.[0];
      show("bad", [
        `${error.code ?? "error"}: ${error.message ?? String(caught)}`,
        ...fields,
        ...(transaction
          ? [["See the declined transaction", `/dashboard/transactions/${transaction.id}`] as [string, string]]
          : []),
      ]);
    } finally {
      payButton.disabled = false;
    }
  }
}
