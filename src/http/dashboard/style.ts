/** The dashboard's one stylesheet, served as /dashboard/assets/dashboard.css (the CSP allows no inline style). */
export const DASHBOARD_CSS = `
:root { --ink: #1d2330; --muted: #535c6e; --line: #e4e7ec; --bg: #f7f8fa; --accent: #3551d4; --ok: #067647; --bad: #b42318; --warn: #b54708; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
/* Links in running text are underlined: colour alone does not tell them apart. */
main p a, main dd a, main .empty a, main .muted a, main .flash a { text-decoration: underline; text-underline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; background: #fff; color: var(--accent); padding: 8px 12px; z-index: 10; }
.skip:focus { left: 8px; top: 8px; }
header.top { background: #111827; color: #fff; }
header.top .bar { display: flex; align-items: center; gap: 18px; padding: 10px 20px 6px; }
header.top a { color: #d0d7e2; }
header.top a.brand { color: #fff; font-weight: 700; font-size: 16px; flex: none; }
/* One line at every width: the links scroll sideways on a phone instead of wrapping. */
header.top nav { display: flex; gap: 12px; flex-wrap: nowrap; overflow-x: auto; white-space: nowrap; min-width: 0; flex: 1; scrollbar-width: thin; }
header.top nav a { padding: 2px 0; }
header.top nav a.current { color: #fff; font-weight: 600; border-bottom: 2px solid #8da2fb; }
header.top .tools { display: flex; align-items: center; gap: 8px 18px; padding: 4px 20px 8px; flex-wrap: wrap; font-size: 13px; color: #d0d7e2; }
header.top .tools form { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
header.top select, header.top button { font: inherit; padding: 2px 6px; border-radius: 6px; }
header.top #header-clock { color: #fff; }
header.top .result { color: #fca5a5; }
.live { font-size: 12px; color: #b6c2d2; margin-left: auto; }
.live.on::before { content: "●"; color: #22c55e; margin-right: 4px; }
main { padding: 20px; max-width: 1240px; margin: 0 auto; }
h1 { font-size: 20px; margin: 0 0 14px; }
h2 { font-size: 16px; margin: 24px 0 8px; }
.card > h2:first-child { margin-top: 0; }
table { position: relative; width: 100%; min-width: 0; border-collapse: collapse; background: #fff; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
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
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 340px), 1fr)); gap: 14px; align-items: start; }
dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0; }
dl.fields dt { color: var(--muted); }
dl.fields dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
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
.secret code { overflow-wrap: anywhere; background: #f2f4f7; padding: 4px 8px; border-radius: 6px; }
pre { background: #0f172a; color: #e2e8f0; padding: 12px; border-radius: 8px; overflow: auto; font-size: 12.5px; }
iframe.mail { width: 100%; height: 640px; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
.split { display: grid; grid-template-columns: 360px minmax(0, 1fr); gap: 14px; }
.split .list a { display: block; padding: 8px 10px; border-bottom: 1px solid var(--line); color: var(--ink); }
.split .list a.current { background: #eef4ff; }
/* The Try it page's card fields: a label over a bare container; the frame inside draws the field. */
.frame-field { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 3px; }
form.stack { display: grid; gap: 10px; max-width: 520px; }
.result { margin-top: 12px; }
.flash { padding: 10px 14px; border-radius: 8px; background: #ecfdf3; color: var(--ok); margin-bottom: 14px; }
.flash.bad { background: #fef3f2; color: var(--bad); }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
header.top :focus-visible { outline-color: #8da2fb; }
.id { display: inline-flex; gap: 4px; align-items: center; white-space: nowrap; }
button.copy { padding: 0 6px; font-size: 11px; line-height: 18px; color: var(--muted); }
button.danger { border-color: #fda29b; color: var(--bad); }
form.inline { display: inline-flex; gap: 6px; align-items: center; flex-wrap: wrap; margin: 0; }
.result:empty { display: none; }
.result.ok { color: var(--ok); }
.result.bad, .result .bad { color: var(--bad); }
.result ul { margin: 4px 0 0; padding-left: 18px; }
.empty p { margin: 0 0 8px; }
.empty .next { text-align: left; max-width: 820px; margin: 0 auto; }
.command { position: relative; }
.command button.copy { position: absolute; top: 8px; right: 8px; background: #1e293b; color: #e2e8f0; border-color: #334155; }
.actions { display: grid; gap: 12px; align-content: start; }
.actions h2 { margin-top: 0; }
.actions form { display: flex; gap: 8px; align-items: end; flex-wrap: wrap; }
.actions label, form.stack label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 3px; }
form.stack label.check { flex-direction: row; align-items: center; gap: 8px; font-size: 14px; color: var(--ink); }
.field-error { color: var(--bad); font-size: 12px; }
.custom-field-row { border: 1px solid var(--line); border-radius: 8px; padding: 12px; display: grid; gap: 8px; }
.custom-field-row h3 { margin: 0; font-size: 15px; }
details.edit summary { cursor: pointer; color: var(--accent); }
details.payload { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; margin: 14px 0; }
details.payload summary { cursor: pointer; }
details.payload summary h2 { display: inline; margin: 0 8px 0 0; }
details.payload[open] summary { margin-bottom: 8px; }
.headers td:first-child { white-space: nowrap; color: var(--muted); }
table.headers { table-layout: fixed; }
table.headers td { word-break: break-all; }
table.headers td:first-child { white-space: normal; overflow-wrap: anywhere; word-break: normal; width: 38%; }
.attempt { border-top: 1px solid var(--line); padding-top: 10px; margin-top: 10px; }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
label.grow { flex: 1; min-width: 220px; display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 3px; }
h3 { font-size: 15px; margin: 0 0 8px; }
h4 { font-size: 13px; margin: 12px 0 6px; color: var(--muted); }
pre.response-body { max-height: 320px; }
nav.views { display: flex; gap: 4px; flex-wrap: wrap; margin: 0 0 10px; border-bottom: 1px solid var(--line); }
nav.views a { padding: 6px 10px; border: 1px solid transparent; border-bottom: 0; border-radius: 6px 6px 0 0; color: var(--ink); }
nav.views a.current { background: #fff; border-color: var(--line); font-weight: 600; margin-bottom: -1px; }
pre.mail-text { white-space: pre-wrap; background: #fff; color: var(--ink); border: 1px solid var(--line); }
.email-view .command pre { max-height: 640px; white-space: pre-wrap; word-break: break-all; }
table.links td.mono { overflow-wrap: anywhere; }
@media (max-width: 760px) {
  main { padding: 12px; }
  .split { grid-template-columns: minmax(0, 1fr); }
  /* Wide tables scroll inside themselves, never the page. */
  table { display: block; overflow-x: auto; }
  table.headers { display: table; }
  dl.fields { grid-template-columns: minmax(0, 1fr); }
  dl.fields dt { margin-top: 6px; }
}
`;
