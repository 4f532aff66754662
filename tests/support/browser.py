"""Headless Chromium for the tests that look at a report (tests/test_report_browser.py,
tests/test_report_print_checks.py, the measures' end-to-end tests): run it, read what a
script injected into the page finds about the layout, take screenshots and print the page
to PDF. Tests using it skip when /usr/bin/chromium is absent."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
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


def screenshots(report: Path, tmp: Path, label: str) -> dict[str, Path]:
    """PNG of the first screen, and of every figure of the report laid out two to a row."""
    shots = {}
    first = tmp / f"{label}_first_screen.png"
    run = chromium([f"--window-size={WIDTH},{FIRST_SCREEN}", f"--screenshot={first}", report.as_uri()], tmp)
    assert run.returncode == 0 and first.exists(), run.stderr[-2000:]
    shots["first_screen"] = first
    page = report.read_text()
    figures = re.findall(r"<figure[^>]*>.*?</figure>", page, flags=re.S)
    if figures:
        gallery = tmp / f"{label}_figures.html"
        gallery.write_text(
            "<!DOCTYPE html><html><head><meta charset='utf-8'><style>body{margin:8px;font-family:sans-serif}"
            ".g{display:grid;grid-template-columns:1fr 1fr;gap:8px}figure{margin:0}img{width:100%;height:auto}"
            "figcaption{font-size:12px;color:#555}</style></head><body><div class='g'>" + "".join(figures) + "</div></body></html>"
        )
        shot = tmp / f"{label}_figures.png"
        height = gallery_height(figures)
        run = chromium([f"--window-size={WIDTH},{height}", f"--screenshot={shot}", gallery.as_uri()], tmp)
        assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
        shots["figures"] = shot
    keep = os.environ.get("REPORT_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for path in shots.values():
            shutil.copy2(path, Path(keep) / path.name)
    return shots


def gallery_height(figures: list[str]) -> int:
    """Pixels for the figures two to a row, each at half the window's width with its
    aspect ratio (read from the embedded PNG's header), and a caption under each."""
    column = (WIDTH - 24) / 2
    heights = []
    for fig in figures:
        m = re.search(r"data:image/png;base64,([A-Za-z0-9+/=]{32})", fig)
        w, h = png_size_of(base64.b64decode(m.group(1))[:24]) if m else (4, 3)
        heights.append(column * h / w + 60)
    rows = [max(heights[k:k + 2]) for k in range(0, len(heights), 2)]
    return int(sum(rows) + 40)


def png_size_of(head: bytes) -> tuple[int, int]:
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def check(report: Path, tmp: Path, label: str) -> tuple[dict, dict[str, Path]]:
    verdict = layout(report, tmp)
    assert verdict["h2"][:2] == ["headline", "findings"], verdict["h2"]  # the headline block, then the Findings
    assert verdict["images"] >= 1 and verdict["broken"] == [], verdict
    assert verdict["unboxed_wide_tables"] == [], verdict
    assert verdict["scroll_width"] <= verdict["page_width"] + 1, verdict  # nothing pushes the page sideways
    shots = screenshots(report, tmp, label)
    for path in shots.values():
        assert path.stat().st_size > 20_000, path  # a rendered page, not a blank one
    verdict["screenshots"] = {name: {"bytes": path.stat().st_size, "size": png_size(path)} for name, path in shots.items()}
    verdict["pdf"] = printed(report, tmp, label)
    # as printed: the key tables in full, every figure, no toggle and no folded table's rows
    verdict["print"] = layout(report, tmp, script=PRINT_CHECK, print_rules=True)
    assert verdict["print"]["key_tables"] >= 1 and verdict["print"]["key_tables_hidden"] == [], verdict["print"]
    assert verdict["print"]["toggles_shown"] == 0 and verdict["print"]["folded_tables_shown"] == 0, verdict["print"]
    assert verdict["print"]["figures_shown"] == verdict["images"], verdict["print"]
    (tmp / f"{label}_layout.json").write_text(json.dumps(verdict, indent=2))
    keep = os.environ.get("REPORT_SCREENSHOTS")
    if keep:
        shutil.copy2(tmp / f"{label}_layout.json", Path(keep) / f"{label}_layout.json")
    return verdict, shots


def printed(report: Path, tmp: Path, label: str) -> dict:
    """Print the report to PDF as a reader would from the browser (A4, the page's print
    CSS): every figure of the page is in the PDF, on at least one page."""
    pdf = tmp / f"{label}.pdf"
    run = chromium(["--no-pdf-header-footer", f"--print-to-pdf={pdf}", report.as_uri()], tmp)
    assert run.returncode == 0 and pdf.exists(), run.stderr[-2000:]
    data = pdf.read_bytes()
    pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
    images = len(re.findall(rb"/Subtype\s*/Image", data))
    figures = len(re.findall(r"<figure[^>]*>\s*<img", report.read_text()))
    assert pages >= 1 and images >= figures >= 1, (pages, images, figures)
    return {"pages": pages, "images": images, "figures": figures, "bytes": len(data)}


def png_size(path: Path) -> list[int]:
    """[width, height] in pixels, from the PNG header."""
    return list(png_size_of(path.read_bytes()[:24]))


def paper_figures(out: Path) -> set[str]:
    """The Figures section's figures a report folder holds."""
    return {p.stem for p in (out / "figures").glob("paper_*.png")}
