/** The dashboard's one stylesheet, served as /dashboard/assets/dashboard.css (the CSP allows no inline style). */
export const DASHBOARD_CSS = `
:root { --ink: #1d2330; --muted: #667085; --line: #e4e7ec; --bg: #f7f8fa; --accent: #3551d4; --ok: #067647; --bad: #b42318; --warn: #b54708; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top { display: flex; align-items: center; gap: 16px; padding: 10px 20px; background: #111827; color: #fff; flex-wrap: wrap; }
header.top a { color: #cbd5e1; }
header.top a.brand { color: #fff; font-weight: 700; font-size: 16px; }
header.top nav { display: flex; gap: 12px; flex-wrap: wrap; flex: 1; }
header.top nav a.current { color: #fff; font-weight: 600; }
header.top select { font: inherit; padding: 3px 6px; border-radius: 6px; }
.live { font-size: 12px; color: #94a3b8; }
.live.on::before { content: "●"; color: #22c55e; margin-right: 4px; }
main { padding: 20px; max-width: 1240px; margin: 0 auto; }
h1 { font-size: 20px; margin: 0 0 14px; }
h2 { font-size: 16px; margin: 24px 0 8px; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f2f4f7; font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); }
tr:last-child td { border-bottom: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; font-weight: 600; background: #eef2f6; color: var(--muted); }
.badge.ok { background: #ecfdf3; color: var(--ok); }
.badge.bad { background: #fef3f2; color: var(--bad); }
.badge.warn { background: #fffaeb; color: var(--warn); }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin-bottom: 14px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 14px; }
dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0; }
dl.fields dt { color: var(--muted); }
dl.fields dd { margin: 0; word-break: break-all; }
form.filters { display: flex; gap: 10px; align-items: end; flex-wrap: wrap; margin-bottom: 14px; }
form.filters label, form.stack label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 3px; }
input, select, button, textarea { font: inherit; }
input, select, textarea { padding: 5px 8px; border: 1px solid #d0d5dd; border-radius: 6px; background: #fff; }
button, .button { white-space: nowrap; padding: 6px 12px; border-radius: 6px; border: 1px solid #d0d5dd; background: #fff; cursor: pointer; color: var(--ink); }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button:disabled { opacity: .5; cursor: default; }
.pager { display: flex; gap: 12px; align-items: center; margin-top: 10px; color: var(--muted); }
.empty { padding: 28px; text-align: center; color: var(--muted); background: #fff; border: 1px dashed var(--line); border-radius: 8px; }
.muted { color: var(--muted); }
.row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.secret { display: flex; gap: 8px; align-items: center; }
.secret code { word-break: break-all; background: #f2f4f7; padding: 4px 8px; border-radius: 6px; }
pre { background: #0f172a; color: #e2e8f0; padding: 12px; border-radius: 8px; overflow: auto; font-size: 12.5px; }
iframe.mail { width: 100%; height: 640px; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
.split { display: grid; grid-template-columns: 360px 1fr; gap: 14px; }
.split .list a { display: block; padding: 8px 10px; border-bottom: 1px solid var(--line); color: var(--ink); }
.split .list a.current { background: #eef4ff; }
.field-frame { height: 42px; border: 1px solid #d0d5dd; border-radius: 6px; background: #fff; padding: 0 4px; }
form.stack { display: grid; gap: 10px; max-width: 520px; }
.result { margin-top: 12px; }
.flash { padding: 10px 14px; border-radius: 8px; background: #ecfdf3; color: var(--ok); margin-bottom: 14px; }
.flash.bad { background: #fef3f2; color: var(--bad); }
`;
