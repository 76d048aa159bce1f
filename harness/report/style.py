"""The report's stylesheet, inline in the page: system fonts only, no external files."""

CSS = """
:root { --ok: #2f7d3b; --ok-bg: #e7f4e9; --bad: #b42318; --bad-bg: #fdecea; --skip: #6b6b6b; --warn: #9a6700;
  --line: #d8d8d8; --ink: #1f2328; --muted: #59636e; --tool: #2f5fa8; --tool-bg: #eaf1fb; --sleep: #a86b00;
  --sleep-bg: #fff4d6; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: #fafafa; }
header { padding: 18px 28px 12px; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 2px 0; color: var(--muted); }
nav a { margin-right: 14px; }
main { padding: 8px 28px 40px; max-width: 1500px; }
h2 { margin: 26px 0 8px; font-size: 18px; }
a { color: #0b5cad; }
.counts span { display: inline-block; margin-right: 10px; padding: 2px 9px; border-radius: 10px; font-weight: 600; }
.badge { display: inline-block; min-width: 44px; padding: 0 6px; border-radius: 9px; font-size: 12px;
  font-weight: 700; text-align: center; text-transform: uppercase; }
.pass { background: var(--ok-bg); color: var(--ok); }
.fail, .broken { background: var(--bad-bg); color: var(--bad); }
.skip { background: #eee; color: var(--skip); }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f4f6; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.summary td:nth-child(2) { white-space: nowrap; }
table.matrix th.col { font-size: 12px; width: 76px; text-align: center; }
table.matrix td { text-align: center; width: 76px; font-weight: 600; }
table.matrix td.kind { text-align: left; width: auto; font-weight: 400; white-space: nowrap; }
table.matrix td.hit { background: var(--ok-bg); color: var(--ok); }
table.matrix td.gap { background: var(--bad-bg); color: var(--bad); }
table.matrix td.na { background: #f0f0f0; color: #b0b0b0; font-weight: 400; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 14px; height: 12px; margin-right: 4px; vertical-align: -1px;
  border: 1px solid var(--line); }
section.scenario { margin: 10px 0; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
section.scenario.failed { border-color: var(--bad); }
section.scenario > details > summary { padding: 8px 12px; cursor: pointer; font-weight: 600; }
section.scenario .body { padding: 0 14px 12px; }
.about { color: var(--muted); margin: 0 0 8px; }
.scroll { overflow-x: auto; border: 1px solid #eee; background: #fcfcfc; padding: 4px 0; }
ul.problems { margin: 8px 0; padding-left: 0; list-style: none; }
ul.problems li { margin: 3px 0; padding: 4px 8px; background: var(--bad-bg); border-left: 4px solid var(--bad); }
ul.problems li a { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; margin-right: 6px; }
ul.notes li { color: var(--warn); }
ul.unseen li { color: var(--muted); }
pre { margin: 6px 0; padding: 8px; overflow-x: auto; background: #f6f8fa; border: 1px solid #eee;
  font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre.source span { display: block; }
pre.source span b { display: inline-block; width: 3.5em; color: #9aa0a6; font-weight: 400; user-select: none; }
pre.source span.bad { background: var(--bad-bg); outline: 1px solid #f3b8b2; }
pre.source span:target { background: #fff3b0; }
details.more > summary { cursor: pointer; color: var(--muted); margin-top: 6px; }
svg.timeline { display: block; font: 11px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
svg .band rect { fill: #eef0f3; stroke: #aab2bd; }
svg .band.bad rect { fill: var(--bad-bg); stroke: var(--bad); stroke-width: 1.5; }
svg .band text { fill: var(--ink); }
svg .band.bad text { fill: var(--bad); font-weight: 600; }
svg .band text.end { font-weight: 600; }
svg .call rect { fill: var(--ok-bg); stroke: var(--ok); }
svg .call.failed rect { fill: var(--bad-bg); stroke: var(--bad); }
svg .call.invalid rect { fill: #f8d0cc; stroke: var(--bad); stroke-width: 2; }
svg .call text.head { font-weight: 600; }
svg line.hit { stroke: var(--bad); stroke-width: 3; }
svg text.hit { fill: var(--bad); font-weight: 600; }
svg .tool rect { fill: var(--tool-bg); stroke: var(--tool); }
svg .tool.error rect { fill: #fbeaf6; stroke: #9b2c7d; }
svg .tool text { fill: var(--tool); font-weight: 600; }
svg .sleep rect { fill: var(--sleep-bg); stroke: var(--sleep); }
svg .sleep text { fill: var(--sleep); font-weight: 600; }
svg line.axis, svg line.tick { stroke: #9aa0a6; }
svg text.tick { fill: var(--muted); font-size: 10px; }
"""
