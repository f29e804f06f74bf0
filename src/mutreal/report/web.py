"""Styles and the one small script shared by the report page and the per-bug pages.

Everything is inline so the pages open from disk, mailed or attached, with no server and no CDN:
the script only sorts a ``table.data`` when its header is clicked and filters its rows by a typed
text. Without JavaScript the tables are still complete, only static.
"""

from __future__ import annotations

#: base styles of every page
CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;
color:#222;padding:0 1rem;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.25rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1rem;margin-bottom:.4rem}
table{border-collapse:collapse;font-size:.82rem;margin:.3rem 0 .4rem}
th,td{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}
th{background:#f0f3f7}tr:nth-child(even) td{background:#fafafa}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td.no{background:#fde2e1 !important}td.yes{background:#e3f4e5 !important}
.note{color:#555;font-size:.8rem;margin:.1rem 0 1rem}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{color:#555;font-size:.8rem}
.summary p{margin:.2rem 0}
nav a{margin-right:1rem;font-size:.85rem}
th.sortable{cursor:pointer;user-select:none}th.sortable:hover{background:#e2e8f0}
th[data-dir=asc]::after{content:" \\25B2";font-size:.7em}th[data-dir=desc]::after{content:" \\25BC";font-size:.7em}
.filterbar{margin:.2rem 0}.filterbar input{font-size:.8rem;padding:.1rem .3rem;width:16rem}
.filterbar .count{color:#555;font-size:.8rem;margin-left:.5rem}
"""

#: extra styles of a bug page (the side-by-side diff and the component marks)
BUG_CSS = """
body{max-width:1500px}
.meta{font-size:.9rem}.meta span{margin-right:1.2rem}
table.diff{table-layout:fixed;width:100%;border-collapse:collapse;font-size:.78rem;margin:0}
table.diff td{border:none;border-right:1px solid #e5e5e5;padding:0 .4rem;background:none !important}
table.diff col.no{width:3.2rem}table.diff col.code{width:calc(50% - 3.2rem)}
table.diff td.no{color:#888;text-align:right;background:#f6f6f6 !important;user-select:none}
table.diff td.code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;
word-break:break-all;tab-size:4}
table.diff td.del{background:#fde8e8 !important}table.diff td.ins{background:#e6f6e8 !important}
table.diff td.empty{background:#f3f3f3 !important}
table.diff .dx{background:#f5b5b5;border-radius:2px}table.diff td.ins .dx{background:#a8e0b0}
table.diff td.hl{box-shadow:inset 4px 0 0 #e0a000;outline:1px solid #e0a000}
table.diff td.code.hl:not(.del):not(.ins){background:#fff6d6 !important}
a.badge{float:right;margin-left:.3rem;padding:0 .35rem;border-radius:.6rem;background:#e0a000;color:#fff;
font:bold .7rem system-ui,sans-serif;text-decoration:none;line-height:1.35rem}
a.badge:target{background:#b35c00;outline:2px solid #b35c00}
details.fold summary{font-size:.75rem;color:#555;background:#f0f3f7;padding:.1rem .6rem;cursor:pointer}
.filepair{border:1px solid #ccc;margin:.8rem 0 1.5rem}
.filepair h3{margin:0;padding:.3rem .6rem;background:#f0f3f7;font-size:.85rem;font-family:ui-monospace,monospace;
display:flex;justify-content:space-between;gap:1rem}
.filepair h3 span{overflow-wrap:anywhere}
.missing{background:#fff4e5;border-left:4px solid #e0a000;padding:.4rem .8rem;font-size:.85rem}
td.conf-high{background:#e3f4e5 !important}td.conf-medium{background:#fff6d6 !important}
td.conf-low{background:#fde2e1 !important}
code{font-size:.85em}
"""

#: sorting (click a header; numbers compare as numbers) and filtering (a search box above tables of 6
#: rows or more, and above any table with a ``data-filter`` attribute)
TABLE_JS = """
(function () {
  function key(cell) {
    if (!cell) return '';
    var text = (cell.getAttribute('data-sort') || cell.textContent).trim();
    var number = text.replace(/%$/, '');
    return text !== '' && /^-?\\d+(\\.\\d+)?$/.test(number) ? parseFloat(number) : text.toLowerCase();
  }
  function compare(x, y) {
    if (typeof x === typeof y) return x < y ? -1 : x > y ? 1 : 0;
    return typeof x === 'number' ? -1 : 1;
  }
  document.querySelectorAll('table.data').forEach(function (table) {
    var body = table.tBodies[0];
    if (!body || !table.tHead) return;
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    heads.forEach(function (th, i) {
      th.classList.add('sortable');
      th.title = 'sort by this column';
      th.addEventListener('click', function () {
        var dir = th.getAttribute('data-dir') === 'asc' ? 'desc' : 'asc';
        heads.forEach(function (h) { h.removeAttribute('data-dir'); });
        th.setAttribute('data-dir', dir);
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var r = compare(key(a.cells[i]), key(b.cells[i]));
          return dir === 'asc' ? r : -r;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
    if (body.rows.length < 6 && !table.hasAttribute('data-filter')) return;
    var bar = document.createElement('div');
    bar.className = 'filterbar';
    var input = document.createElement('input');
    input.type = 'search';
    input.placeholder = 'filter rows';
    input.setAttribute('aria-label', 'filter the rows of this table');
    var count = document.createElement('span');
    count.className = 'count';
    input.addEventListener('input', function () {
      var q = input.value.toLowerCase(), shown = 0;
      Array.prototype.forEach.call(body.rows, function (r) {
        var ok = r.textContent.toLowerCase().indexOf(q) >= 0;
        r.style.display = ok ? '' : 'none';
        shown += ok ? 1 : 0;
      });
      count.textContent = q ? shown + ' of ' + body.rows.length + ' rows' : '';
    });
    bar.appendChild(input);
    bar.appendChild(count);
    table.parentNode.insertBefore(bar, table);
  });
})();
"""


def script_tag() -> str:
    """The table script, inline."""
    return f"<script>{TABLE_JS}</script>"
