/**
 * The dashboard's only script (served transpiled as /dashboard/assets/dashboard.js): the merchant
 * picker, copy buttons, actions, and live refresh — on every change the server announces over
 * /dashboard/events, the page's <main> is fetched again and swapped in.
 *
 * Actions are `<form method="post">` elements. Each is sent as same-origin JSON (the only kind
 * the server accepts); its answer or error is shown in the form's own result slot, next to the
 * button that was pressed, with field errors under the fields they name.
 */
export {};

const body = document.body;

document.getElementById("merchant-picker")?.addEventListener("change", (event) => {
  // requestSubmit() fires "submit", so the choice goes as JSON like every other action.
  (event.target as HTMLSelectElement).form?.requestSubmit();
});

async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
}

document.addEventListener("click", (event) => {
  const button = (event.target as Element | null)?.closest<HTMLButtonElement>("button[data-copy]");
  if (!button) return;
  void copyText(button.dataset.copy ?? "").then(() => {
    const label = button.textContent;
    button.textContent = "Copied";
    setTimeout(() => (button.textContent = label), 1200);
  });
});

interface Answer {
  redirect?: string;
  message?: string;
  errors?: Record<string, string[]>;
}

/** The form's result slot (created when the form has none). */
function resultSlot(form: HTMLFormElement): HTMLElement {
  let slot = form.querySelector<HTMLElement>(":scope .result");
  if (!slot) {
    slot = document.createElement("div");
    slot.className = "result";
    slot.setAttribute("role", "status");
    form.append(slot);
  }
  return slot;
}

/**
 * A field's error in the words its label uses: the API names the field ("The total may not be
 * greater than 10.00…"), the form calls it what its label says (`data-label`: "The refund amount
 * …") and shows amounts as the label does, with `$` (`data-money`).
 */
function inLabelWords(message: string, name: string, field: HTMLElement | null): string {
  let text = message;
  const label = field?.dataset.label;
  if (label) {
    const apiName = name.replace(/[_.]/g, " ");
    text = text.replace(new RegExp(`^The ${apiName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "i"), `The ${label}`);
  }
  if (field?.dataset.money !== undefined) text = text.replace(/(^|[^$\d.,])(\d{1,3}(?:,\d{3})*\.\d{2})\b/g, "$1$$$2");
  return text;
}

/**
 * Shows an action's answer. Each field error shows once, under its field (which is marked
 * invalid and described by it); the result slot next to the button holds only what no field
 * can: the answer's message, or errors about fields the form does not have. `focus` moves to
 * the first invalid field, for a fresh answer (not when a re-render puts the answer back).
 */
function showResult(form: HTMLFormElement, ok: boolean, answer: Answer, focus = false): void {
  const details = form.closest("details");
  if (details) details.open = true;
  for (const old of form.querySelectorAll(".field-error")) old.remove();
  for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
  const slot = resultSlot(form);
  slot.className = `result ${ok ? "ok" : "bad"}`;
  slot.setAttribute("role", ok ? "status" : "alert");
  const errors = Object.entries(answer.errors ?? {});
  slot.textContent = errors.length > 0 ? "" : (answer.message ?? (ok ? "Done." : "The action failed."));
  let first: HTMLElement | null = null;
  for (const [name, messages] of errors) {
    const field = form.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`);
    const note = document.createElement("span");
    note.className = "field-error";
    // getAttribute, not form.id: a control named "id" (a custom field's id) shadows the property.
    note.id = `${form.getAttribute("id") || "form"}-${name}-error`;
    note.textContent = messages.map((message) => inLabelWords(message, name, field)).join(" ");
    if (field) {
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("aria-describedby", note.id);
      (field.closest("label") ?? field).after(note);
      first ??= field;
    } else {
      slot.append(slot.textContent ? " " : "", note);
    }
  }
  if (focus && first) first.focus();
}

/** The form's fields as JSON: checkboxes as booleans, empty fields left out. */
function formJson(form: HTMLFormElement): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const element of Array.from(form.elements)) {
    const field = element as HTMLInputElement;
    if (!field.name || field.disabled) continue;
    if (field.type === "checkbox") out[field.name] = field.checked;
    else if (field.type === "radio") {
      if (field.checked) out[field.name] = field.value;
    } else if (field.value !== "") out[field.name] = field.value;
  }
  return out;
}

// Actions (POST forms) go as same-origin JSON, the only kind the dashboard accepts.
document.addEventListener("submit", (event) => void submitAction(event));

/** Sends a POST form as JSON and shows the answer beside it. */
async function submitAction(event: SubmitEvent): Promise<void> {
  const form = event.target as HTMLFormElement;
  // getAttribute, not form.method: a control named "method" (the transactions filter) shadows the property.
  if ((form.getAttribute("method") ?? "get").toLowerCase() !== "post") return;
  event.preventDefault();
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
  // The previous answer goes at once: what shows next is this submission's.
  const previous = form.querySelector<HTMLElement>(":scope .result");
  if (previous) previous.textContent = "";
  for (const old of form.querySelectorAll(".field-error")) old.remove();
  for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
  answers.delete(formKey(form));
  const buttons = Array.from(form.querySelectorAll<HTMLButtonElement>("button[type=submit], button:not([type])"));
  for (const button of buttons) button.disabled = true;
  let response: Response;
  let answer: Answer;
  try {
    response = await fetch(form.getAttribute("action") ?? location.pathname, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(formJson(form)),
    });
    answer = (await response.json().catch(() => ({}))) as Answer;
  } catch {
    for (const button of buttons) button.disabled = false;
    return showResult(form, false, { message: "The sandbox did not answer. Is it still running?" });
  }
  for (const button of buttons) button.disabled = false;
  if (!response.ok) {
    const failed = { ...answer, message: answer.message ?? `The action failed (${response.status}).` };
    answers.set(formKey(form), { ok: false, answer: failed });
    return showResult(form, false, failed, true);
  }
  if (answer.redirect) return location.assign(answer.redirect);
  // Re-render the page, then show the answer next to the same action (found again by its key).
  const key = formKey(form);
  answers.set(key, { ok: true, answer });
  await refresh(true);
  const same = findForm(key);
  if (same) {
    showResult(same, true, answer);
    if (same !== form) same.querySelector<HTMLElement>("button, input, select")?.focus();
  } else {
    // The action is gone from the page (a voided transaction cannot be voided again): say it at the top.
    answers.delete(key);
    flash(answer.message ?? "Done.");
  }
}

/** A message at the top of the page, focused so a screen reader and a keyboard user land on it. */
function flash(message: string, focus = true): void {
  flashed = message;
  const main = document.getElementById("main");
  const box = document.createElement("div");
  box.className = "flash";
  box.setAttribute("role", "status");
  box.tabIndex = -1;
  box.textContent = message;
  main?.prepend(box);
  if (focus) box.focus();
}

/** Answers shown on this page, re-applied after every re-render so a live refresh never wipes them. */
const answers = new Map<string, { ok: boolean; answer: Answer }>();
let flashed: string | null = null;

/** A form's identity across re-renders: its id, else its action URL and button label. */
function formKey(form: HTMLFormElement): string {
  return (
    form.getAttribute("id") ||
    `${form.getAttribute("action")}|${form.querySelector("button[type=submit]")?.textContent?.trim()}`
  );
}

function findForm(key: string): HTMLFormElement | null {
  return (
    Array.from(document.querySelectorAll<HTMLFormElement>("form[method=post]")).find((f) => formKey(f) === key) ?? null
  );
}

let running: Promise<void> | null = null;
let again = false;

/**
 * Fetches the page again and swaps in its <main> (and the header's clock). A refresh asked for
 * while one runs runs once more after it, so the page always ends up at least as new as the ask.
 */
function refresh(force = false): Promise<void> {
  const main = document.getElementById("main");
  const active = document.activeElement;
  // Never pull the page from under someone typing in a field.
  const typing = active && main?.contains(active) && active.matches("input, select, textarea");
  if (!main || (typing && !force)) return Promise.resolve();
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    try {
      do {
        again = false;
        await rerender(main);
      } while (again);
    } finally {
      running = null;
    }
  })();
  return running;
}

async function rerender(main: HTMLElement): Promise<void> {
  const response = await fetch(location.href, { headers: { accept: "text/html" }, credentials: "same-origin" }).catch(
    () => null,
  );
  if (!response?.ok) return;
  const next = new DOMParser().parseFromString(await response.text(), "text/html");
  const nextMain = next.getElementById("main");
  if (!nextMain) return;
  const open = Array.from(main.querySelectorAll("details[open] form[id]"), (f) => f.getAttribute("id") ?? "");
  main.replaceChildren(...Array.from(nextMain.childNodes, (node) => document.importNode(node, true)));
  const clock = document.getElementById("header-clock");
  const nextClock = next.getElementById("header-clock");
  if (clock && nextClock)
    clock.replaceChildren(...Array.from(nextClock.childNodes, (n) => document.importNode(n, true)));
  for (const id of open) document.getElementById(id)?.closest("details")?.setAttribute("open", "");
  for (const [key, shown] of answers) {
    const form = findForm(key);
    if (form) showResult(form, shown.ok, shown.answer);
  }
  if (flashed) flash(flashed, false);
  checkLinks();
  body.dataset.refreshed = String(Number(body.dataset.refreshed ?? "0") + 1);
}

/**
 * The e-mail view's link check: each link to the sandbox is requested from here (same origin,
 * without the dashboard's cookie, redirects not followed), as the customer's browser would open
 * it, and its answer shown beside it.
 */
function checkLinks(): void {
  for (const slot of document.querySelectorAll<HTMLElement>("[data-check]:not([data-checked])")) {
    slot.dataset.checked = "";
    void fetch(slot.dataset.check ?? "", { credentials: "omit", redirect: "manual" }).then(
      (answer) => {
        const ok = answer.ok || answer.type === "opaqueredirect";
        slot.textContent = answer.type === "opaqueredirect" ? "redirects" : `${answer.status} ${answer.statusText}`;
        slot.className = `link-check badge ${ok ? "ok" : "bad"}`;
      },
      () => {
        slot.textContent = "no answer";
        slot.className = "link-check badge bad";
      },
    );
  }
}
checkLinks();

if (body.dataset.live === "on" && "EventSource" in window) {
  const indicator = document.getElementById("live");
  // `since`: whatever was written between this page's render and the stream's start is announced at once.
  const source = new EventSource(`/dashboard/events?since=${encodeURIComponent(body.dataset.version ?? "")}`);
  let timer: ReturnType<typeof setTimeout> | undefined;
  source.addEventListener("open", () => indicator?.classList.add("on"));
  source.addEventListener("error", () => indicator?.classList.remove("on"));
  source.addEventListener("change", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), 200);
  });
  window.addEventListener("pagehide", () => source.close());
}
