"""The package's architecture, read from its source (AST, nothing imported):

- no module-level mutable state: a module-level name bound to a dict/list/set (literal,
  comprehension or a call of a mutable constructor) is state every caller shares; a true
  constant is ALL_CAPS and immutable (tuple, frozenset, MappingProxyType, str, number);
- the layering core <- stats <- shared <- measures <- designs <- logs <- report <- cli: no
  module imports a layer above its own, at module level or inside a function; no measure
  imports another (what two measures share sits in `shared`, what combines them in
  `designs`), without exception. The measures' layer is every folder of the package that is
  not one of the named layers (each measure of `catalog.MEASURES`, `pew`, `models`, and any
  folder a new measure adds) and every measure of the catalog outside the package: the
  lists come from the tree and the catalog, not from this file.

Known exceptions are listed with their reason; `test_*_burn_down` (xfail) says what is
left, so a fix shows up as an XPASS to move into the strict test.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import shutil
from pathlib import Path

import pytest

from political_sycophancy import catalog

PKG = "political_sycophancy"
SRC = Path(__file__).resolve().parents[1] / "src" / PKG
# The named layers; every other folder of the package sits at the measures' layer, 3.
LAYER = {"core": 0, "stats": 1, "shared": 2, "designs": 4, "logs": 5, "report": 6, "cli": 7}
MEASURE_LAYER = 3
MUTABLE_CALLS = frozenset({"dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque", "bytearray", "WDMemo", "RunCache"})

# Column-name lists handed to pandas (a tuple is ONE key for groupby/loc, so these need
# list(...) at every use before they can become tuples), and tables owned by modules other
# helpers are reworking (issue 13: core/io, the parameter definition, the importer, gguf).
KNOWN_MUTABLE = {
    "political_sycophancy:_EXPORTS": "lazy-export table of the package (perf helper)",
    "shared.cells:CELL_KEY": "pandas column list",
    "shared.cells:VARIANT_KEY": "pandas column list",
    "shared.cells:ITEM_COLUMNS": "pandas column list",
    "designs.paper:OUTPUT_TOKENS": "audit parameter definition (params helper)",
    "designs.paper:DESIGNS": "audit parameter definition (params helper)",
    "shared.shifts:ITEM": "pandas column list",
    "shared.shifts:DECOMPOSITION_COLUMNS": "pandas column list",
    "audit.task:CONDITION_TASKS": "audit parameter definition (params helper)",
    "core.items:KNOWN_COLUMNS": "file readers (concepts helper: core/io)",
    "core.items:INSTRUMENTS": "file readers (concepts helper: core/io)",
    "core.parsing:REFUSAL_PATTERNS": "parser (concepts helper)",
    "core.parsing:_REPLY_WORDS": "parser (concepts helper)",
    "logs.cache:NATIVE_DTYPES": "log cache (perf helper)",
    "logs.design:GROUP": "pandas column list",
    "logs.design:COLUMNS": "pandas column list",
    "logs.design:RECORD_FIELDS": "design records (logs)",
    "logs.frame:BASE_COLUMNS": "pandas column list",
    "logs.frame:CELL_KEY": "pandas column list",
    "models.gguf:PACKAGED_MODELS": "gguf provider (perf helper)",
    "models.gguf:_LOADED": "process-wide cache of loaded llama.cpp models (perf helper): a model is GBs, loaded once",
    "open_ended.analysis:GROUP": "pandas column list",
    "open_ended.analysis:LABEL_COLUMNS": "pandas column list",
    "open_ended.judge:STANCE_METRICS": "Inspect metric list (a scorer's metrics= takes a list)",
    "open_ended.rephrase:PROMPTS": "rephrase prompts (open_ended; concepts helper YAML loaders)",
    "open_ended.rephrase:COLUMNS": "pandas column list",
    "open_ended.statements:SIDE_SIGN": "statement reader (concepts helper: core/io)",
    "open_ended.statements:DIMENSION_ALIASES": "statement reader (concepts helper: core/io)",
    "open_ended.statements:DIRECTION_ALIASES": "statement reader (concepts helper: core/io)",
    "open_ended.statements:BUILTIN": "statement reader (concepts helper: core/io)",
    "open_ended.statements:BUILTIN_CODING": "statement reader (concepts helper: core/io)",
    "open_ended.statements:KNOWN_COLUMNS": "statement reader (concepts helper: core/io)",
    "pew.replication:PCT_COLUMNS": "pandas column list",
    "pew.replication:TYPOLOGY_COLUMNS": "pandas column list",
    "pew.replication:ATP_COLUMNS": "pandas column list",
    "pew.sav:BASE_COLUMNS": "pandas column list",
    "pew.sav:TAIL_COLUMNS": "pandas column list",
    "probes.scorers:EXPECTED_LABELS": "probe scorers (concepts helper: logprob mass)",
    "probes.scorers:PERCEPTION_LABELS": "probe scorers (concepts helper: logprob mass)",
    "probes.scorers:GRADER_LABELS": "probe scorers (concepts helper: logprob mass)",
    "sway.tables:GROUP": "pandas column list",
    "sway.analysis:BASE": "pandas column list",
    "sway.tables:CELL": "pandas column list",
    "sway.tables:PAIR": "pandas column list",
    "sway.analysis:REQUIRED": "pandas column list",
    "sway.framings:PCT_STANCES": "SWAY framings (task side)",
    "sway.mitigations:STEP_NAMES": "SWAY mitigations (task side)",
    "sway.mitigations:INSTRUCTIONS": "SWAY mitigations (task side)",
    "sway.mitigations:SCAFFOLDS": "SWAY mitigations (task side)",
    "sway.scorer:SWAY_METRICS": "Inspect metric list (a scorer's metrics= takes a list)",
    "sway.task:POLARITY_NAMES": "SWAY task",
}

def external_measures() -> list[tuple[str, Path]]:
    """(dotted name, folder) of each measure of the catalog that lives outside the package
    (another package's entry point, a test's toy), found without importing it."""
    out = []
    for name in catalog.MEASURES:
        if name != PKG and not name.startswith(PKG + "."):
            spec = importlib.util.find_spec(name)
            assert spec is not None and spec.submodule_search_locations, f"the measure {name} is not a package"
            out.append((name, Path(next(iter(spec.submodule_search_locations)))))
    return out


def _roots(root: Path) -> list[tuple[str, Path]]:
    return [(PKG, root), *external_measures()]


def _modules(root: Path = SRC):
    for dotted, folder in _roots(root):
        for path in sorted(folder.rglob("*.py")):
            parts = (*dotted.split("."), *path.relative_to(folder).with_suffix("").parts)
            package = parts[:-1]
            yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), package, _parsed(path.read_text(encoding="utf-8"))


@functools.cache
def _parsed(source: str) -> ast.Module:
    """Each source parsed once per worker (the scanners read every module several times); by
    its text, so an edited or planted module is parsed again. Read, never changed."""
    return ast.parse(source)


def _short(module: str) -> str:
    return module.removeprefix(PKG + ".") if module != PKG else PKG


def mutable_module_names(root: Path = SRC) -> dict[str, str]:
    """{module:name: what} for module-level names bound to mutable values."""
    found = {}
    for module, _, tree in _modules(root):
        for node in tree.body:
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            names = [t.id for t in targets if isinstance(t, ast.Name) and t.id != "__all__"]
            what = None
            if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
                what = type(value).__name__.lower()
            elif isinstance(value, ast.Call):
                func = value.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if name in MUTABLE_CALLS:
                    what = f"{name}()"
            if what:
                for n in names:
                    found[f"{_short(module)}:{n}"] = what
    return found


def imports(root: Path = SRC) -> set[tuple[str, str]]:
    """(importer, imported) for every import of our package or of a measure outside it,
    wherever it stands."""
    out = set()
    prefixes = tuple(f"{dotted}." for dotted, _ in _roots(root))
    for module, package, tree in _modules(root):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(package[: len(package) - node.level + 1])
                    target = f"{base}.{node.module}" if node.module else base
                else:
                    target = node.module or ""
                names = [f"{target}.{a.name}" for a in node.names] if node.module is None else [target]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            out |= {(module, n) for n in names if n.startswith(prefixes)}
    return out


def _unit(module: str, root: Path = SRC) -> str | None:
    """The layer folder (`report`) or measure (`sway`, `support.toy_measure`) a module
    belongs to; None for the package's top-level modules (catalog, the entry point)."""
    for dotted, _ in external_measures():
        if module == dotted or module.startswith(dotted + "."):
            return dotted
    parts = module.split(".")
    if len(parts) > 1 and parts[0] == PKG and (root / parts[1]).is_dir():
        return parts[1]
    return None


def _level(unit: str) -> int:
    return LAYER.get(unit, MEASURE_LAYER)


def upward_imports(root: Path = SRC) -> set[tuple[str, str]]:
    """(importer, imported) of every import of a layer above the importer's."""
    out = set()
    for a, b in imports(root):
        ua, ub = _unit(a, root), _unit(b, root)
        if ua and ub and _level(ub) > _level(ua):
            out.add((a, b))
    return out


def cross_measure_imports(root: Path = SRC) -> set[tuple[str, str]]:
    """(importer, imported) of every import of one measure-layer folder by another."""
    out = set()
    for a, b in imports(root):
        ua, ub = _unit(a, root), _unit(b, root)
        if ua and ub and ua != ub and _level(ua) == _level(ub) == MEASURE_LAYER:
            out.add((a, b))
    return out


def test_the_scanners_see_the_package():
    assert len(list(_modules())) > 60
    assert ("political_sycophancy.report.render", "political_sycophancy.stats.options") in imports()


def test_every_measure_of_the_catalog_sits_at_the_measures_layer():
    for name in catalog.MEASURES:
        unit = _unit(name)
        assert unit is not None and _level(unit) == MEASURE_LAYER, f"{name}: not a folder at the measures' layer"


def _reached(start: list[str], edges: set[tuple[str, str]], known: set[str]) -> set[str]:
    """The modules `start` reaches through imports within each one's own folder."""
    found: set[str] = set()
    todo = list(start)
    while todo:
        module = todo.pop()
        if module not in found:
            found.add(module)
            todo += [b for a, b in edges if a == module and _unit(b) == _unit(module) and b in known]
    return found


def _analysis_modules() -> tuple[str, ...]:
    """The analysis side of every measure: its report sections and report contributions
    (its declaration) and the modules of its folder they import, less those its Inspect side
    (the modules it registers, imports files with, runs commands and judges from) imports."""
    edges, known = imports(), {m for m, _, _ in _modules()}
    declared = catalog.declared()
    analysis = _reached([m for d in declared for m in (*d.sections, *d.report)], edges, known)
    inspect_side = _reached([m for d in declared for m in (*d.registers, *d.imports, *d.commands, *d.judges)], edges, known)
    return tuple(m.removeprefix(PKG + ".") for m in analysis - inspect_side)


def test_no_new_module_level_mutable_state():
    new = {k: v for k, v in mutable_module_names().items() if k not in KNOWN_MUTABLE}
    assert not new, f"module-level mutable values (make them tuple/frozenset/MappingProxyType, or per-run state): {new}"


def test_the_analysis_holds_no_module_state():
    """The statistics, the report and the measures' analysis modules: no exception at all
    beyond pandas column lists."""
    analysis = ("stats.", "report.", "shared.", *_analysis_modules())
    assert {"audit.conditions", "audit.stability", "probes.rows", "sway.analysis", "profiles.estimators"} <= set(analysis)
    state = {k: KNOWN_MUTABLE.get(k) for k in mutable_module_names() if k.split(":")[0].startswith(analysis)}
    assert {k: v for k, v in state.items() if v != "pandas column list"} == {}


def test_known_mutable_list_is_current():
    stale = set(KNOWN_MUTABLE) - set(mutable_module_names())
    assert not stale, f"fixed, remove from KNOWN_MUTABLE: {sorted(stale)}"


@pytest.mark.xfail(reason="burn-down: KNOWN_MUTABLE lists the module-level mutable values left (pandas column lists, other helpers' modules)", strict=False)
def test_no_module_level_mutable_state_burn_down():
    assert mutable_module_names() == {}


def test_core_and_stats_import_nothing_above_them():
    for importer, imported in imports():
        if _unit(importer) == "core":
            assert _unit(imported) in (None, "core"), (importer, imported)
        if _unit(importer) == "stats":
            assert _unit(imported) in (None, "core", "stats"), (importer, imported)


def test_no_module_imports_a_higher_layer():
    """core <- stats <- shared <- measures <- designs <- logs <- report <- cli, imports inside
    functions included."""
    assert upward_imports() == set()


def test_no_measure_imports_another():
    cross = cross_measure_imports()
    assert cross == set(), f"cross-measure imports (move the shared piece to `shared`, the combination to `designs`): {sorted(cross)}"


def test_logs_do_not_import_report_or_cli_and_report_not_cli():
    for importer, imported in imports():
        if _unit(importer) == "logs":
            assert _unit(imported) not in ("report", "cli"), (importer, imported)
        if _unit(importer) == "report":
            assert _unit(imported) != "cli", (importer, imported)


def test_nothing_imports_its_own_measures_analysis():
    """Inside a measure, tasks, scorers and judges sit below the analysis (report sections);
    its report contribution (its declaration's `report` modules) sits above them."""
    above = {m for measure in catalog.declared() for m in measure.report}
    offenders = {(a, b) for a, b in imports()
                 if b.endswith(".analysis") and _unit(a) == _unit(b) and not a.endswith(".analysis") and a not in above}
    assert not offenders, sorted(offenders)


# --- the guards catch what a new measure plants (issue 43) -------------------------------------

PLANTS = {
    "sway/planted.py": "from ..report.findings import x\n",  # an existing measure reaching up to the report
    "newmeasure/__init__.py": "from ..logs.frame import read_frame\n",  # a folder no list names yet
    "newmeasure/late.py": "def f():\n    from ..cli import main\n    from .. import designs\n    from ..sway import task\n",
}


def _planted(tmp_path: Path) -> Path:
    root = tmp_path / PKG
    shutil.copytree(SRC, root, ignore=shutil.ignore_patterns("__pycache__"))
    for rel, text in PLANTS.items():
        (root / rel).parent.mkdir(exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_an_import_of_a_higher_layer_planted_in_a_measure_fails_the_guard(tmp_path):
    root = _planted(tmp_path)
    up = upward_imports(root)
    assert {("political_sycophancy.sway.planted", "political_sycophancy.report.findings"),
            ("political_sycophancy.newmeasure", "political_sycophancy.logs.frame"),
            ("political_sycophancy.newmeasure.late", "political_sycophancy.cli"),
            ("political_sycophancy.newmeasure.late", "political_sycophancy.designs")} <= up
    assert ("political_sycophancy.newmeasure.late", "political_sycophancy.sway") in cross_measure_imports(root)
    assert upward_imports() == set()  # the real tree, beside it


def test_a_measure_outside_the_package_is_guarded_as_the_catalog_lists_it(tmp_path, monkeypatch):
    """A measure from another package (or a test's folder), listed in the catalog: its
    imports of the report, the logs, the designs or the CLI fail the same guard."""
    folder = tmp_path / "plantpkg" / "toy"
    folder.mkdir(parents=True)
    (folder.parent / "__init__.py").write_text("", encoding="utf-8")
    (folder / "__init__.py").write_text("from political_sycophancy.report.findings import x\n", encoding="utf-8")
    (folder / "analysis.py").write_text("from political_sycophancy.logs import frame\nfrom political_sycophancy.sway import task\n",
                                        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(catalog, "MEASURES", (*catalog.MEASURES, "plantpkg.toy"))
    assert {("plantpkg.toy", "political_sycophancy.report.findings"), ("plantpkg.toy.analysis", "political_sycophancy.logs")} \
        <= upward_imports()
    assert ("plantpkg.toy.analysis", "political_sycophancy.sway") in cross_measure_imports()
