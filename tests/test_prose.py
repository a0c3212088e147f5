"""The chapters and the package speak of the library only.

A reader of the site or of `help()` cannot resolve words about how a result was found: an issue and its number,
a working session, "this machine", a run date used as a label, or an acceptance verdict. This test reads every
notebook's markdown cells and the docstrings of mlc_lit's modules and names each such phrase it finds.
"""

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROCESS_WORDS = re.compile(
    r"\b(the issue|issue's|issues? #?\d+|this session|a session|sessions?|this machine|MISSED)\b", re.IGNORECASE
)
RUN_DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


def _hits(text: str) -> list[str]:
    "Each process word or run date in `text`, with a few words around it."
    out = []
    for pattern in (PROCESS_WORDS, RUN_DATE):
        for m in pattern.finditer(text):
            around = text[max(0, m.start() - 40) : m.end() + 40].replace("\n", " ")
            out.append(f"{m.group(0)!r} in '...{around}...'")
    return out


def _notebooks() -> list[Path]:
    return sorted((ROOT / "nbs").glob("*.ipynb")) + sorted((ROOT / "nbs" / "guides").glob("*.ipynb"))


def _markdown(path: Path) -> list[tuple[int, str]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "markdown"]


def _docstrings(path: Path) -> list[tuple[str, str]]:
    "(name, docstring) of the module and of every function and class defined in it."
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))]
    return [(getattr(n, "name", "module"), doc) for n in nodes if (doc := ast.get_docstring(n))]


def test_the_patterns_catch_what_they_should():
    assert _hits("as the issue asked") and _hits("this session's run") and _hits("the run of 2026-11-26")
    assert _hits("issue 17") and _hits("target <= 1.0: MISSED") and _hits("on this machine")
    assert not _hits("a regression target y, on a 2-core machine, at commit abc1234 (tissue, missing)")


def test_notebook_markdown_speaks_of_the_library_only():
    found = [
        f"{nb.relative_to(ROOT)} cell {i}: {h}" for nb in _notebooks() for i, text in _markdown(nb) for h in _hits(text)
    ]
    assert not found, "process words in chapter prose:\n" + "\n".join(found)


def test_package_docstrings_speak_of_the_library_only():
    found = [
        f"{path.relative_to(ROOT)} {name}: {h}"
        for path in sorted((ROOT / "mlc_lit").rglob("*.py"))
        for name, doc in _docstrings(path)
        for h in _hits(doc)
    ]
    assert not found, "process words in docstrings:\n" + "\n".join(found)
