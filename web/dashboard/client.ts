/**
 * The dashboard's only script (served transpiled as /dashboard/assets/dashboard.js): the merchant
 * picker, copy buttons, confirmations, and live refresh — on every change the server announces
 * over /dashboard/events, the page's <main> is fetched again and swapped in.
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

/** Shows an action's failure above the page content. */
function flash(message: string): void {
  const main = document.getElementById("main");
  const box = document.createElement("div");
  box.className = "flash bad";
  box.setAttribute("role", "alert");
  box.textContent = message;
  main?.prepend(box);
}

// Actions (POST forms) go as same-origin JSON, the only kind the dashboard accepts; the answer says where to go next.
document.addEventListener("submit", async (event) => {
  const form = event.target as HTMLFormElement;
  if (form.method.toLowerCase() !== "post") return;
  event.preventDefault();
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
  const response = await fetch(form.action, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(Object.fromEntries(new FormData(form))),
  });
  const answer = (await response.json().catch(() => ({}))) as { redirect?: string; message?: string };
  if (!response.ok) return flash(answer.message ?? `The action failed (${response.status}).`);
  if (answer.redirect) location.assign(answer.redirect);
  else location.reload();
});

let refreshing = false;
async function refresh(): Promise<void> {
  const main = document.getElementById("main");
  const active = document.activeElement;
  // Never pull the page from under someone typing in a filter.
  if (!main || refreshing || (active && main.contains(active) && active.matches("input, select, textarea"))) return;
  refreshing = true;
  try {
    const response = await fetch(location.href, { headers: { accept: "text/html" }, credentials: "same-origin" });
    if (!response.ok) return;
    const next = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("main");
    if (next) main.replaceChildren(...Array.from(next.childNodes, (node) => document.importNode(node, true)));
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
