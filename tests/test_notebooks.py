"""Every notebook under nbs/ as `nbdev-test` runs it (the cells flagged `#| slow` skipped), one test per notebook,
so that `pytest -n 2` shares the notebooks and the other tests between two worker processes. `nbdev-test` runs them
the same way on its own, and `nbdev-test --flags slow` with the slow cells."""

from pathlib import Path

import pytest
from nbdev.config import get_config
from nbdev.doclinks import nbglob
from nbdev import test as nbdev_test

ROOT = Path(__file__).resolve().parent.parent
CONFIG = get_config(ROOT)
NOTEBOOKS = sorted(
    f.relative_to(CONFIG.nbs_path)
    for f in nbglob(CONFIG.nbs_path, as_path=True)
    if not (f.parent / ".notest").exists()  # nbdev-test's rule for a folder of notebooks not to test
)
SKIP_FLAGS = CONFIG.tst_flags.split() if isinstance(CONFIG.tst_flags, str) else list(CONFIG.tst_flags)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[str(n) for n in NOTEBOOKS])
def test_notebook(notebook):
    # test_nb runs the notebook from its own folder, as nbdev-test does
    passed, _ = nbdev_test.test_nb(CONFIG.nbs_path / notebook, skip_flags=SKIP_FLAGS, basepath=CONFIG.config_path)
    assert passed, f"{notebook} failed: its traceback is printed above"
