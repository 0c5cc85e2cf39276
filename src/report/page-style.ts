/** The report page's stylesheet, inlined so the page needs nothing but itself. */
export const PAGE_STYLE =
  `
:root { --ok: #2f9e44; --attention: #e8a700; --error: #c2255c; --bad: #e03131; --timeout: #f08c00; ` +
  `--manager: #1c7ed6; --unfinished: #868e96; --line: #dee2e6; --muted: #6c757d; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; ` +
  `padding: 24px 32px 48px; color: #212529; background: #f8f9fa; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 0 0 8px; }
.muted { color: var(--muted); }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin-top: 20px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 0; padding: 0; list-style: none; }
.cards li { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 110px; }
.cards b { display: block; font-size: 20px; }
.legend { display: flex; flex-wrap: wrap; gap: 16px; margin: 12px 0 0; padding: 0; list-style: none; ` +
  `color: var(--muted); }
.legend i { display: inline-block; width: 22px; height: 12px; border-radius: 3px; vertical-align: -1px; ` +
  `margin-right: 6px; }
.badge { display: inline-block; border-radius: 10px; padding: 0 9px; font-size: 12px; color: #fff; ` +
  `background: var(--unfinished); vertical-align: 2px; }
.badge.done { background: var(--ok); } .badge.halted, .badge.interrupted { background: var(--bad); }
.axis { display: flex; justify-content: space-between; margin-left: 240px; color: var(--muted); font-size: 12px; ` +
  `border-bottom: 1px solid var(--line); }
.lane { display: flex; align-items: center; border-bottom: 1px dashed var(--line); min-height: 34px; }
.lane .label { width: 240px; flex: none; padding-right: 12px; overflow: hidden; text-overflow: ellipsis; ` +
  `white-space: nowrap; }
.track { position: relative; flex: 1; height: 26px; }
.bar { position: absolute; top: 3px; height: 20px; min-width: 4px; border-radius: 3px; color: #fff; ` +
  `font-size: 11px; line-height: 20px; padding: 0 4px; overflow: hidden; white-space: nowrap; text-decoration: none; ` +
  `text-shadow: 0 0 2px rgba(0, 0, 0, 0.5); }
.bar.valid { background: var(--ok); }
.bar.invalid { background: var(--bad); }
.bar.valid.status-blocked, .bar.valid.status-escalate { background: var(--attention); }
.bar.valid.status-error { background: var(--error); }
.bar.manager.valid.status-ok { background: var(--manager); }
.bar.timeout, .legend .hatch { background: repeating-linear-gradient(45deg, var(--timeout), var(--timeout) 5px, ` +
  `#ffa94d 5px, #ffa94d 10px); }
.bar.unfinished { background: var(--unfinished); }
.bar.retry { outline: 2px solid #212529; outline-offset: -2px; }
.bar:hover { filter: brightness(1.15); z-index: 1; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 10px 5px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
#roles { margin-top: 16px; }
tr.invalid td.result { color: var(--bad); } tr.timeout td.result { color: var(--timeout); } ` +
  `tr.valid td.result { color: var(--ok); }
tr.status-blocked td.result, tr.status-escalate td.result { color: #b08800; } ` +
  `tr.status-error td.result { color: var(--error); }
.badge.live { background: var(--ok); }
.columns { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 14px; margin-top: 12px; }
.column { background: #f1f3f5; border-radius: 8px; padding: 10px; min-width: 0; }
.column h3 { font-size: 14px; margin: 0 0 8px; } .column .count { color: var(--muted); font-weight: 400; }
.column ol { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 8px; }
.card { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--unfinished); border-radius: 6px; }
.card { padding: 8px 10px; overflow-wrap: anywhere; }
.card.done { border-left-color: var(--ok); } .card.current { border-left-color: var(--manager); }
.card.blocked { border-left-color: var(--attention); }
.card-head { display: flex; gap: 6px; align-items: center; font-size: 12px; color: var(--muted); }
.card-title { font-weight: 600; margin: 2px 0; } .card .path, .card .because { font-size: 12px; }
.tag { border-radius: 8px; padding: 0 7px; font-size: 11px; color: #fff; background: var(--manager); }
.tag.running { background: var(--ok); }
.outcome { font-size: 13px; margin-top: 4px; overflow: hidden; }
.outcome { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 3; }
.outcome.invalid { color: var(--bad); } .outcome.timeout { color: var(--timeout); }
.outcome.status-blocked, .outcome.status-escalate { color: #b08800; } .outcome.status-error { color: var(--error); }
.facts { font-size: 12px; margin-top: 4px; }
`;
