"""Headless Chromium for the tests that look at a report (tests/test_report_browser.py,
the measures' end-to-end tests): run it, and read what a script injected into the page
finds about the layout. Tests using it skip when /usr/bin/chromium is absent."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
WIDTH = 1200
FIRST_SCREEN = 900

# Runs in the page after load; writes its findings into the DOM for --dump-dom.
CHECK = """
<script>
window.addEventListener('load', function () {
  var W = document.documentElement.clientWidth;
  var h2 = document.querySelectorAll('h2');
  var imgs = Array.prototype.slice.call(document.images);
  var wide = [];
  document.querySelectorAll('table').forEach(function (t) {
    var r = t.getBoundingClientRect();
    var boxed = t.closest('details') || (function () {
      var box = t.closest('.tw'); if (!box) return null;
      var s = getComputedStyle(box); var b = box.getBoundingClientRect();
      return (s.overflowX === 'auto' || s.overflowX === 'scroll') && b.right <= W + 1 ? box : null; })();
    if (r.right > W + 1 && !boxed) wide.push((t.closest('details, div, body').previousElementSibling || {}).id || 'table');
  });
  var out = {
    first_h2: h2.length ? h2[0].id : null,
    h2: Array.prototype.map.call(h2, function (h) { return h.id; }),
    images: imgs.length,
    broken: imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); }).map(function (i) { return i.alt; }),
    tables: document.querySelectorAll('table').length,
    unboxed_wide_tables: wide,
    page_width: W,
    scroll_width: document.documentElement.scrollWidth,
    details: document.querySelectorAll('details').length
  };
  var pre = document.createElement('pre'); pre.id = 'layout-check'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def chromium(args: list[str], tmp: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    flags = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
             f"--user-data-dir={tmp / 'chromium-profile'}"]
    return subprocess.run(flags + args, capture_output=True, text=True, timeout=timeout)


# Runs in the page with its print rules applied on screen (what --print-to-pdf lays out):
# which key tables (details.key) show their rows, which toggles or folded tables show.
PRINT_CHECK = """
<script>
window.addEventListener('load', function () {
  function shown(e) { return !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length); }
  var keys = Array.prototype.slice.call(document.querySelectorAll('details.key'));
  var out = {
    key_tables: keys.length,
    key_tables_hidden: keys.filter(function (d) { var t = d.querySelector('table'); return !t || !shown(t); })
                           .map(function (d) { return (d.previousElementSibling || {}).id || 'table'; }),
    toggles_shown: Array.prototype.filter.call(document.querySelectorAll('span.toggle'), shown).length,
    folded_tables_shown: Array.prototype.filter.call(document.querySelectorAll('details:not([open]) table'), shown).length,
    figures_shown: Array.prototype.filter.call(document.querySelectorAll('figure img'), shown).length
  };
  var pre = document.createElement('pre'); pre.id = 'layout-check'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def layout(report: Path, tmp: Path, *, script: str = CHECK, print_rules: bool = False) -> dict:
    """The `script`'s verdict on the report rendered at WIDTH pixels; with `print_rules`,
    its `@media print` rules applied on screen (headless Chromium dumps the DOM only for the
    screen, and the PDF's text is not readable without a PDF library)."""
    page = tmp / ("printed.html" if print_rules else "checked.html")
    text = report.read_text()
    if print_rules:
        assert text.count("@media print{") == 1
        text = text.replace("@media print{", "@media all{")
    page.write_text(text.replace("</body>", script + "</body>"))
    run = chromium([f"--window-size={WIDTH},{FIRST_SCREEN}", "--virtual-time-budget=10000", "--dump-dom", page.as_uri()], tmp)
    assert run.returncode == 0, run.stderr[-2000:]
    m = re.search(r"<pre id=\"layout-check\">(.*?)</pre>", run.stdout, flags=re.S)
    assert m, "the check script did not run"
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
