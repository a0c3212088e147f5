"""Every notebook under nbs/ run as `nbdev-test` runs it (the cells flagged `#| slow` skipped), one test per notebook,
so that `pytest -n 2` shares the notebooks and the other tests between two worker processes.

One difference from `nbdev-test`: a cell that nbdev exports runs as an import of the names it defines from the
installed package (`from mlc_lit.boomer.grow import make_grow_rule`), not as its own copy of the code. The code is
the same — `test_package_is_the_notebooks` fails when mlc_lit/ is not what `nbdev-export` makes of the notebooks —
but Numba compiles a kernel defined in a notebook cell anew in every run and in every notebook that defines it,
while the package's kernels are compiled once and cached on disk, for the notebooks and the other tests alike.
A cell whose top level is more than definitions and imports (a loop, a condition, a call) runs as it is.
`nbdev-test` runs the notebooks' own code, and `nbdev-test --flags slow` the slow cells too."""

import ast
import re
from pathlib import Path

import pytest
from execnb.shell import CaptureShell
from fastcore.xtras import working_directory
from nbdev import test as nbdev_test
from nbdev.config import get_config
from nbdev.doclinks import nbglob
from nbdev.export import nb_export
from nbdev.process import NBProcessor

ROOT = Path(__file__).resolve().parent.parent
CONFIG = get_config(ROOT)
NOTEBOOKS = sorted(
    f.relative_to(CONFIG.nbs_path)
    for f in nbglob(CONFIG.nbs_path, as_path=True)
    if not (f.parent / ".notest").exists()  # nbdev-test's rule for a folder of notebooks not to test
)
SKIP_FLAGS = CONFIG.tst_flags.split() if isinstance(CONFIG.tst_flags, str) else list(CONFIG.tst_flags)
EXPORTS = ("export", "exporti", "exports")


def _top_level_names(tree: ast.Module) -> list | None:
    "Names the statements of `tree` bind, imports aside; None if a statement is more than a definition or an import."
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a string
        else:
            return None
    return names


def _as_import(source: str, module: str) -> str | None:
    "An exported cell's `source` as its imports plus one import of what it defines from `module`; None: run it as is."
    tree = ast.parse(source)
    names = _top_level_names(tree)
    if names is None:
        return None
    lines = [ast.get_source_segment(source, s) for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    names = [n for n in dict.fromkeys(names) if n != "__all__"]
    if names:
        lines.append(f"from {CONFIG.lib_name}.{module} import {', '.join(names)}")
    return "\n".join(lines)


def _exported_cells_imported(nb) -> None:
    "Replace, in place, each exported cell of `nb` that only defines names by an import of them from the package."
    module = None
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        directives = cell.directives_
        if "default_exp" in directives:
            module = str(directives["default_exp"]).strip()
        kind = next((k for k in EXPORTS if k in directives), None)
        if kind is None:
            continue
        target = str(directives[kind] or "").strip() or module
        if not target:
            continue  # no module to import from: the cell runs as it is
        source = _as_import(cell.source, target)
        if source is not None:
            cell.source = source


def run_notebook(path: Path) -> bool:
    "Run the notebook at `path` as `nbdev_test.test_nb` does, its exported cells imported; True if every cell ran."
    nb = NBProcessor(path, rm_directives=False, process=True).nb
    _exported_cells_imported(nb)
    shell = CaptureShell(path)
    skip = nbdev_test._skip_cell(nb, SKIP_FLAGS, None)
    with working_directory(path.parent):
        try:
            shell.run_all(nb, exc_stop=True, preproc=skip, cell_timeout=600)
        except Exception:
            print(shell.prettytb(fname=path))
            return False
    return True


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[str(n) for n in NOTEBOOKS])
def test_notebook(notebook, monkeypatch):
    monkeypatch.setenv("IN_TEST", "1")  # as nbdev-test: `nbdev_export()` cells do nothing
    monkeypatch.syspath_prepend(str(CONFIG.config_path))  # as nbdev-test: the project's root importable
    assert run_notebook(CONFIG.nbs_path / notebook), f"{notebook} failed: its traceback is printed above"


def _module_text(path: Path) -> str:
    "A module's text with the notebook paths nbdev writes relative to the module's folder made comparable."
    return re.sub(r"(?m)^(# %% |# AUTOGENERATED! DO NOT EDIT! File to edit: )\S*?nbs/", r"\1nbs/", path.read_text())


def test_package_is_the_notebooks(tmp_path):
    "mlc_lit/ holds what `nbdev-export` makes of the notebooks (so the imports above run the notebooks' code)."
    lib = tmp_path / CONFIG.lib_path.name
    for nb in nbglob(CONFIG.nbs_path, as_path=True):
        nb_export(nb, lib_path=lib)
    made = {p.relative_to(lib): p for p in lib.rglob("*.py")}
    stale = [str(rel) for rel, p in made.items() if _module_text(p) != _module_text(CONFIG.lib_path / rel)]
    assert not stale, f"mlc_lit/ differs from the notebooks in {', '.join(sorted(stale))}: run nbdev-export"
