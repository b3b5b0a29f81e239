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

function showResult(form: HTMLFormElement, ok: boolean, answer: Answer): void {
  for (const old of form.querySelectorAll(".field-error")) old.remove();
  for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
  const slot = resultSlot(form);
  slot.className = `result ${ok ? "ok" : "bad"}`;
  slot.setAttribute("role", ok ? "status" : "alert");
  slot.textContent = answer.message ?? (ok ? "Done." : "The action failed.");
  for (const [name, messages] of Object.entries(answer.errors ?? {})) {
    const field = form.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`);
    const note = document.createElement("span");
    note.className = "field-error";
    note.id = `${form.id || "form"}-${name}-error`;
    note.textContent = messages.join(" ");
    if (field) {
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("aria-describedby", note.id);
      (field.closest("label") ?? field).after(note);
    } else {
      slot.append(" ", note);
    }
  }
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
document.addEventListener("submit", async (event) => {
  const form = event.target as HTMLFormElement;
  // getAttribute, not form.method: a control named "method" (the transactions filter) shadows the property.
  if ((form.getAttribute("method") ?? "get").toLowerCase() !== "post") return;
  event.preventDefault();
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
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
    return showResult(form, false, { ...answer, message: answer.message ?? `The action failed (${response.status}).` });
  }
  if (answer.redirect) return location.assign(answer.redirect);
  // Re-render the page, then show the answer next to the same action (found again by its action URL).
  const action = form.getAttribute("action");
  await refresh(true);
  const again = Array.from(document.querySelectorAll<HTMLFormElement>("form[method=post]")).find(
    (f) => f.getAttribute("action") === action,
  );
  const target = again ?? form;
  showResult(target, true, answer);
  if (again && again !== form) again.querySelector<HTMLElement>("button, input, select")?.focus();
});

let refreshing = false;
async function refresh(force = false): Promise<void> {
  const main = document.getElementById("main");
  const active = document.activeElement;
  // Never pull the page from under someone typing in a field.
  const typing = active && main?.contains(active) && active.matches("input, select, textarea");
  if (!main || refreshing || (typing && !force)) return;
  refreshing = true;
  try {
    const response = await fetch(location.href, { headers: { accept: "text/html" }, credentials: "same-origin" });
    if (!response.ok) return;
    const next = new DOMParser().parseFromString(await response.text(), "text/html");
    const nextMain = next.getElementById("main");
    if (nextMain) main.replaceChildren(...Array.from(nextMain.childNodes, (node) => document.importNode(node, true)));
    const clock = document.getElementById("header-clock");
    const nextClock = next.getElementById("header-clock");
    if (clock && nextClock)
      clock.replaceChildren(...Array.from(nextClock.childNodes, (n) => document.importNode(n, true)));
    body.dataset.refreshed = String(Number(body.dataset.refreshed ?? "0") + 1);
  } finally {
    refreshing = false;
  }
}

if (body.dataset.live === "on" && "EventSource" in window) {
  const indicator = document.getElementById("live");
  const source = new EventSource("/dashboard/events");
  let timer: ReturnType<typeof setTimeout> | undefined;
  source.addEventListener("open", () => indicator?.classList.add("on"));
  source.addEventListener("error", () => indicator?.classList.remove("on"));
  source.addEventListener("change", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), 200);
  });
  window.addEventListener("pagehide", () => source.close());
}
