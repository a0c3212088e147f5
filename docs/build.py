"""Render the documentation site into docs/_build/html (run from anywhere: `python docs/build.py`).

Quarto, which nbdev's own `nbdev-docs` needs, is not available here, so the site is built in three steps:

1. `nbdev.serve.proc_nbs()` writes nbdev's processed notebooks to `_proc/`: hidden and exported
   cells removed, a `show_doc` cell after every exported name, the title and summary in a
   front-matter cell. To render `show_doc` it runs, here, only exported cells, `show_doc` calls and
   import statements (nbdev alone would run any cell containing an import in full), never the tests.
2. This script stages them for MyST-NB in `docs/nbs/` (gitignored): the front matter becomes the
   page's `# Title`, `show_doc` output becomes ordinary Markdown (so each documented name is a
   section with an anchor, in the page's table of contents and in the search index), Quarto cell
   options (`#| echo: false`, ...) become MyST-NB tags, and the root page gets the table of
   contents: every notebook in `nbs/` in file-name order, found by glob, so new notebooks appear
   without editing anything. Then the pages are linked (`resolve`): nbdev's backtick links point to
   the documented name's section on whatever page it is (an undocumented name stays plain code),
   every section gets an Index entry and a `source` link to `source/<module>.html#L-<line>`, a page
   per exported module with its highlighted code (`source_pages`), and `reference.html` lists every
   public name (`reference_page`).
3. Sphinx + MyST-NB (execution off: notebooks are committed with their outputs) + Furo renders
   the HTML; `sphinx-mathjax-offline` ships MathJax with the site, so math needs no CDN.

Options: `--clean` removes `_proc/`, `docs/nbs/` and `docs/_build/` first; `--strict` turns Sphinx
warnings into errors.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
STAGE = DOCS / "nbs"
OUT = DOCS / "_build" / "html"
PROC = ROOT / "_proc"

# Sections of the sidebar, in order: top-level notebooks chosen by their number prefix (00_core -> 0,
# 01_x -> 1, ...), or a folder of nbs/ (a string). Folders not named here follow as their own sections.
SECTIONS = [
    ("Foundations", lambda n: n == 0),
    ("Guides", "guides"),
    ("Papers", lambda n: 1 <= n <= 5),
    ("Beyond one machine", lambda n: n == 8),
    ("Benchmarks and tools", lambda n: n >= 6 and n != 8),
]
SOURCE = "source"  # docs/nbs/source/<module>.md: each exported module's code, highlighted, with line anchors
REFERENCE = "reference"  # the generated page listing every public name
CALLOUTS = {"note": "note", "tip": "tip", "warning": "warning", "important": "important", "caution": "caution"}


CELL_TIMEOUT = 120  # seconds for any one cell nbdev runs to render show_doc


def _doc_cell_plan(cell):
    """What to run of `cell` to render the docs: True (all of it), a string (only its import statements) or None.

    nbdev 3.3 runs every cell that contains an import anywhere, so a test cell that starts with
    `import time` runs in full at docs time (and can fail or take minutes). We run exported cells,
    `show_doc` calls and import statements only: the docs never execute tests."""
    import ast
    from nbdev import processors as P

    if cell.cell_type != "code" or P.cell_lang(cell) != "python" or not cell.source:
        return None
    if "nbdev_export" + "()" in cell.source:
        return None
    if str(cell.directives_.get("eval", "")).lower() == "false":
        return None
    if cell.directives_.keys() & {"export", "exports", "exporti", "exec_doc"}:
        return True
    trees = cell.parsed_()
    if not trees:
        return None
    if P._show_docs(trees):
        return True
    imports = [t for t in trees if isinstance(t, (ast.Import, ast.ImportFrom))]
    if not imports:
        return None
    return True if len(imports) == len(trees) else "\n".join(ast.unparse(t) for t in imports)


def _run_only_doc_cells():
    "Patch nbdev's `exec_show_docs` processor to follow `_doc_cell_plan` (in this process)."
    from nbdev import processors as P

    def __call__(self, cell):
        if not self.nb.has_docs_ or not hasattr(self, "k"):
            return
        fm = getattr(self.nb, "frontmatter_", {})
        if P.str2bool(fm.get("skip_showdoc", False)):
            return
        self.k.timeout = CELL_TIMEOUT
        plan = _doc_cell_plan(cell)
        if plan is True:
            self.k.cell(cell)
        elif plan:
            self.k.run(plan)
        if e := self.k.exc:
            title = fm.get("title", "")
            raise Exception(
                f"Error{' in notebook: ' + title if title else ''} in cell {cell.idx_}:\n{cell.source}\n"
                f"{type(e).__name__}: {e}"
            ) from e

    P.exec_show_docs.__call__ = __call__


def process_notebooks(force: bool = False) -> Path:
    "Run nbdev's processor (writes `_proc/`), in this process, running only what `show_doc` needs."
    from nbdev.serve import proc_nbs

    # nbdev finds pyproject.toml from the working directory; the notebooks must import this checkout.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    _run_only_doc_cells()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return Path(proc_nbs(force=force, n_workers=0))  # n_workers=0: serially here, so the patch applies
    finally:
        os.chdir(cwd)


def _directives(src: str) -> tuple[dict, str]:
    "Split leading `#| key: value` lines (Quarto/nbdev cell options) off a code cell's source."
    opts, lines = {}, src.splitlines()
    while lines and lines[0].lstrip().startswith("#|"):
        body = lines.pop(0).lstrip()[2:].strip()
        key, _, value = body.partition(":")
        opts[key.strip()] = value.strip() if _ else True
    return opts, "\n".join(lines)


def _markdown_output(cell) -> str | None:
    "The text/markdown output of a cell (what `show_doc` returns), if any."
    for out in cell.get("outputs", []):
        md = out.get("data", {}).get("text/markdown")
        if md is not None:
            return "".join(md) if isinstance(md, list) else md
    return None


def _md_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _quarto_to_myst(text: str) -> str:
    "Translate the few Quarto-only Markdown constructs authors use into MyST."

    def callout(m):
        kind = CALLOUTS.get(m.group(1), "note")
        return f":::{{{kind}}}"

    return re.sub(r"^:::\s*\{\.callout-(\w+)[^}]*\}\s*$", callout, text, flags=re.M)


_NUMPYDOC = (
    "Parameters",
    "Other Parameters",
    "Returns",
    "Yields",
    "Receives",
    "Raises",
    "Warns",
    "Warnings",
    "Attributes",
    "Methods",
    "See Also",
    "Notes",
    "References",
    "Examples",
)
_NUMPYDOC_RE = re.compile(r"^(%s)\n-{3,}[ \t]*$" % "|".join(_NUMPYDOC), flags=re.M)
_LISTS = {"Parameters", "Other Parameters", "Returns", "Yields", "Receives", "Raises", "Warns", "Attributes", "Methods"}


def _numpydoc_section(title: str, body: str) -> str:
    "One numpydoc section as MyST: name lists as definition lists, examples as a console block."
    body = body.strip("\n")
    if title == "Examples":
        return f"**{title}**\n\n```pycon\n{body}\n```\n"
    if title not in _LISTS:
        return f"**{title}**\n\n{body}\n"
    items, out = [], [f"**{title}**\n"]
    for line in body.splitlines():
        if line and not line[0].isspace():
            items.append([line.strip(), []])
        elif items:
            items[-1][1].append(line.strip())
    for term, desc in items:
        name, sep, kind = term.partition(" : ")
        head = f"`{name.strip()}`" + (f" : {kind.strip()}" if sep else "")
        text = "\n  ".join(d if d else "" for d in desc).strip() or "\u200b"
        out.append(f"{head}\n: {text}\n")
    return "\n".join(out)


def _numpydoc_to_myst(md: str) -> str:
    "Rewrite numpydoc sections in `show_doc` output (otherwise `Parameters` + dashes would be a Markdown heading)."
    parts = _NUMPYDOC_RE.split(md)
    if len(parts) == 1:
        return md
    out = [parts[0].rstrip() + "\n"]
    for title, body in zip(parts[1::2], parts[2::2]):
        out.append(_numpydoc_section(title, body))
    return "\n".join(out)


def _show_doc_markdown(md: str) -> str:
    "`show_doc` output as page Markdown: no leading rule, `class` for classes, numpydoc sections readable."
    md = re.sub(r"^\s*---\s*\n", "", md)
    m = re.search(r"^#+ (\S+)", md, flags=re.M)
    name = m.group(1).split(".")[-1] if m else ""
    if name[:1].isupper():  # nbdev 3.3 writes `def Name(` for classes too
        md = md.replace(f"```python\ndef {name}(", f"```python\nclass {name}(", 1)
    return _numpydoc_to_myst(md)


def stage_notebook(src: Path) -> tuple[dict, str]:
    "A processed notebook rewritten for MyST-NB, and its page title."
    nb = json.loads(src.read_text(encoding="utf-8"))
    cells, title = [], src.stem
    for cell in nb["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "raw" and text.lstrip().startswith("---"):
            meta = yaml.safe_load(text.strip().strip("-")) or {}
            title = str(meta.get("title", title))
            head = f"# {title}"
            if meta.get("description"):
                head += f"\n\n{meta['description']}"
            cells.append(_md_cell(head))
            continue
        if cell["cell_type"] == "markdown":
            if text.strip().startswith("<!-- WARNING: THIS FILE WAS AUTOGENERATED"):
                continue
            cells.append(_md_cell(_quarto_to_myst(text)))
            continue
        if cell["cell_type"] != "code":
            continue
        opts, code = _directives(text)
        if opts.get("include") == "false" or "hide" in opts:
            continue
        md = _markdown_output(cell)
        if opts.get("output") == "asis" and md is not None:
            # show_doc: its Markdown becomes part of the page, so each name is a real section.
            cells.append(_md_cell(_show_doc_markdown(md)))
            continue
        cell = copy.deepcopy(cell)
        cell["source"] = code
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if opts.get("echo") == "false":
            tags.append("remove-input")
        if opts.get("output") == "false":
            tags.append("remove-output")
        if not code.strip() and not cell.get("outputs"):
            continue
        cells.append(cell)
    for i, c in enumerate(cells):  # valid nbformat 4.5: an id per cell, no nbdev timing metadata
        c["id"] = f"cell-{i}"
        c["metadata"] = {k: v for k, v in c.get("metadata", {}).items() if k == "tags"}
    nb["cells"] = cells
    nb["nbformat"], nb["nbformat_minor"] = 4, 5
    nb["metadata"] = {k: v for k, v in nb.get("metadata", {}).items() if k in ("kernelspec", "language_info")}
    return nb, title


def _number(rel: Path) -> int | None:
    "The chapter number of a top-level notebook: its first two digits (`0301_mlxgb_gains`, a part of `03_mlxgb`: 3)."
    m = re.match(r"(\d\d)", rel.name)
    return int(m.group(1)) if m and len(rel.parts) == 1 else None


def _page_name(nb: dict, rel: Path, taken: set) -> Path:
    "The page's file name: nbdev's `output-file` (core, metrics, ...) where it is free, else the notebook's."
    name = rel.with_suffix("")
    src = "".join(nb["cells"][0]["source"]) if nb["cells"] and nb["cells"][0]["cell_type"] == "raw" else ""
    m = re.search(r"^output-file:\s*(\S+?)\.html\s*$", src, flags=re.M)
    if m and rel.stem != "index":
        cand = rel.parent / m.group(1)
        if str(cand) not in taken:
            name = cand
    taken.add(str(name))
    return name


def stage(proc: Path) -> list[tuple[str, str, int | None, str]]:
    "Write the MyST-NB sources into docs/nbs/; return (page, title, number, folder) in sidebar order."
    nbs = sorted(
        p.relative_to(proc)
        for p in proc.rglob("*.ipynb")
        if not any(s.startswith((".", "_")) for s in p.relative_to(proc).parts)
    )
    # A chapter before its parts: `01a_boomer` before `01a01_boomer_heads` ("_" read as a space sorts first).
    nbs.sort(key=lambda r: (r.name != "index.ipynb" or len(r.parts) > 1, len(r.parts) > 1, str(r).replace("_", " ")))
    pages, taken, files, html, page_of_nb = [], set(), {}, {}, {}
    for rel in nbs:
        raw = json.loads((proc / rel).read_text(encoding="utf-8"))
        name = _page_name(raw, rel, taken)
        nb, title = stage_notebook(proc / rel)
        files[name.with_suffix(".ipynb")] = nb
        html[str(name)], page_of_nb[rel.as_posix()] = _nbdev_html(raw, rel), str(name)
        pages.append((str(name), title, _number(rel), str(rel.parent) if len(rel.parts) > 1 else ""))
    index = symbol_index()
    docs = resolve(files, html, index, page_of_nb)
    files[Path(REFERENCE + ".md")] = reference_page(docs, pages, index)
    files.update(source_pages(page_of_nb))
    toc = _toc(pages, reference=True)
    if Path("index.ipynb") in files:
        files[Path("index.ipynb")]["cells"].append(dict(_md_cell(toc), id="toc"))
    else:
        files[Path("index.md")] = (
            "# mlc_lit\n\n" + "\n".join(f"- [{t}]({p}.ipynb)" for p, t, *_ in pages) + "\n\n" + toc
        )
    for f in proc.rglob("*"):  # images and data files that notebooks reference by path
        rel = f.relative_to(proc)
        if f.is_file() and f.suffix != ".ipynb" and not any(s.startswith(".") for s in rel.parts):
            files[rel] = f.read_bytes()
    _sync(files)
    return pages


# ---------------------------------------------------------------------------------------------------------
# Cross-references, source pages, index entries and the reference page (after every page is staged).

_DOC_CELL = re.compile(
    r"^(?:\[source\]\((?P<url>[^)\s]*)\)\{[^}\n]*\}\s*\n+)?### (?P<name>\S+)\n\n```python\n(?P<kind>class|def) ", re.S
)
_XREF = re.compile(r"\[(?P<text>[^\]\n]*)\]\((?P<url>/[^)\s#]+\.html(?:#[^)\s]*)?)\)")
_SRC_URL = re.compile(r"(?:.*/blob/[^/]+/|/?)(?P<path>[\w/]+\.py)#L(?P<line>\d+)$")  # nbdev's link to a line
_PLACEHOLDER_SIG = re.compile(r"```python\nclass (?P<name>\w+)\(\n    \*args, \*\*kwargs\n\):\n```")


def _config() -> dict:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _lib_path() -> Path:
    return ROOT / _config().get("tool", {}).get("nbdev", {}).get("lib_path", ROOT.name)


def repository_url() -> str | None:
    "The repository URL configured in pyproject.toml ([project.urls] Repository or Source), if any."
    urls = _config().get("project", {}).get("urls", {})
    return (urls.get("Repository") or urls.get("Source") or "").rstrip("/") or None


def symbol_index() -> dict[str, str]:
    "nbdev's index of exported names (`_modidx.py`) as {'boomer.html#boomerclassifier': 'mlc_lit.boomer.BoomerClassifier'}."
    f = _lib_path() / "_modidx.py"
    if not f.exists():
        return {}
    ns = {}
    exec(f.read_text(encoding="utf-8"), ns)
    return {v[0].lstrip("/"): qual for mod in ns["d"]["syms"].values() for qual, v in mod.items()}


def _nbdev_html(raw: dict, rel: Path) -> str:
    "The page name nbdev gives a notebook in its links (`output-file`, else the notebook's stem)."
    src = "".join(raw["cells"][0]["source"]) if raw["cells"] and raw["cells"][0]["cell_type"] == "raw" else ""
    m = re.search(r"^output-file:\s*(\S+?\.html)\s*$", src, flags=re.M)
    return str(rel.parent / m.group(1)) if m else str(rel.with_suffix(".html"))


def _label(key: str) -> str:
    "The MyST target of a documented name, from nbdev's `page.html#anchor` key."
    page, _, anchor = key.partition("#")
    return "api-" + re.sub(r"[^\w.]+", "-", page[:-5] + "-" + anchor).lower()


def _md_cells(nb: dict):
    for c in nb["cells"]:
        if c["cell_type"] == "markdown":
            if isinstance(c["source"], list):
                c["source"] = "".join(c["source"])
            yield c


def documented(files: dict, html: dict) -> dict:
    """Every name that has a `show_doc` section: {nbdev key: {'page', 'name', 'label', 'kind', 'summary'}}.

    `html` maps each staged page (docs/nbs path without suffix) to nbdev's name for it."""
    found = {}
    for path, nb in files.items():
        if not isinstance(nb, dict):
            continue
        page = str(path.with_suffix(""))
        for c in _md_cells(nb):
            m = _DOC_CELL.match(c["source"])
            if not m:
                continue
            key = f"{html[page]}#{m['name'].lower()}"
            summary = re.search(r"\n```\n\n\*(.+?)\*(?:\n|$)", c["source"])
            found[key] = dict(
                page=page,
                name=m["name"],
                label=_label(key),
                kind=m["kind"],
                summary=summary.group(1).strip() if summary else "",
            )
    return found


def _relative(target: str, page: str) -> str:
    return os.path.relpath(target, start=os.path.dirname(page) or ".").replace(os.sep, "/")


def real_signature(qual: str) -> str | None:
    "`Name(params)` from `inspect.signature` of the object `qual` names (string annotations as written); None if unknown."
    import importlib, inspect

    mod, _, name = qual.rpartition(".")
    try:
        obj = getattr(importlib.import_module(mod), name)
    except Exception:
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "*args" if isinstance(obj, type) and issubclass(obj, BaseException) else None
    parts, kinds, params = [], inspect.Parameter, list(sig.parameters.values())
    for i, p in enumerate(params):
        if p.kind == kinds.KEYWORD_ONLY and (
            i == 0 or params[i - 1].kind not in (kinds.KEYWORD_ONLY, kinds.VAR_POSITIONAL)
        ):
            parts.append("*")
        ann = p.annotation
        if ann is not p.empty:
            ann = getattr(ann, "__forward_arg__", None) or (
                ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))
            )
        text = ("*" if p.kind == kinds.VAR_POSITIONAL else "**" if p.kind == kinds.VAR_KEYWORD else "") + p.name
        if ann is not p.empty:
            text += f":{ann}"
        if p.default is not p.empty:
            text += f"={p.default!r}"
        parts.append(text)
        if p.kind == kinds.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind != kinds.POSITIONAL_ONLY):
            parts.append("/")
    return ", ".join(parts)


def _doc_cell(c: dict, key: str, info: dict, qual: str | None, page: str):
    "A `show_doc` section with its index entry, its label, a link to the source on the site and a real signature."
    m = _DOC_CELL.match(c["source"])
    body, link = c["source"][m.start("name") - 4 :], ""
    src = _SRC_URL.match(m["url"] or "")
    if src:
        href = _relative(f"{SOURCE}/{src['path'][:-3]}.html", page) + f"#L-{src['line']}"
        link = f'<a class="reference internal" href="{href}" style="float:right; font-size:smaller">source</a>\n\n'

    sig = _PLACEHOLDER_SIG.search(body)
    if sig and qual and (real := real_signature(qual)) is not None:
        body = body.replace(
            sig.group(0),
            f"```python\nclass {sig['name']}(\n    {real}\n):\n```"
            if real
            else f"```python\nclass {sig['name']}()\n```",
            1,
        )
    where = qual.rpartition(".")[0] if qual else page
    entry = info["name"].replace(";", ",")
    c["source"] = f"```{{index}} single: {entry} ({where})\n```\n\n{link}({info['label']})=\n" + body


_NB_LINK = re.compile(r"\]\((?P<nb>[\w./-]+\.ipynb)(?P<anchor>#[^)\s]*)?\)")


def xrefs(text: str, docs: dict, page: str = "", page_of_nb: dict | None = None) -> str:
    """`text` with nbdev's links to documented names (`[`X`](/boomer.html#x)`) pointing to the name's section and
    links to a notebook by file name (`01_taylor_boosting.ipynb`) to its page; a link to a name without a section
    becomes its text (plain code), never a dead link."""

    def xref(m):
        t = docs.get(m["url"].lstrip("/").lower())
        return f"[{m['text']}](#{t['label']})" if t else m["text"]

    def nb_link(m):
        rel = os.path.normpath(os.path.join(os.path.dirname(page), m["nb"])).replace(os.sep, "/")
        if not page_of_nb or rel not in page_of_nb:
            return m.group(0)
        return f"]({_relative(page_of_nb[rel], page)}.ipynb{m['anchor'] or ''})"

    return _NB_LINK.sub(nb_link, _XREF.sub(xref, text))


def resolve(files: dict, html: dict, index: dict | None = None, page_of_nb: dict | None = None) -> dict:
    """Rewrite the staged pages in place: cross-references resolved (`xrefs`), and every `show_doc` section
    gets an index entry, a label and a link to its source on the site. Returns `documented`."""
    index = symbol_index() if index is None else index
    docs = documented(files, html)
    for path, nb in files.items():
        if not isinstance(nb, dict):
            continue
        page = str(path.with_suffix(""))
        for c in _md_cells(nb):
            if m := _DOC_CELL.match(c["source"]):
                key = f"{html[page]}#{m['name'].lower()}"
                _doc_cell(c, key, docs[key], index.get(key), page)
            c["source"] = xrefs(c["source"], docs, page, page_of_nb)
    return docs


def reference_page(docs: dict, pages: list, index: dict) -> str:
    "The reference page: every public documented name (no leading `_`, methods aside), its summary and its section."
    titles = {p: t for p, t, *_ in pages}
    out = [
        "# Reference\n",
        "Every public estimator, class and function, with the first line of its documentation; the name "
        "links to its section in the chapter that explains it. The [index](genindex) lists every documented name, "
        "methods included.\n",
    ]
    for page in [p for p, *_ in pages]:
        rows = [
            (k, d)
            for k, d in docs.items()
            if d["page"] == page and "." not in d["name"] and not d["name"].startswith("_")
        ]
        if not rows:
            continue
        mod = {index[k].rpartition(".")[0] for k, _ in rows if k in index}
        out.append(f"## {titles[page]}\n")
        if mod:
            out.append("Module " + ", ".join(f"`{m}`" for m in sorted(mod)) + "\n")
        out.append("| name | kind | summary |\n|---|---|---|")
        for k, d in rows:
            kind = "class" if d["kind"] == "class" or d["name"][:1].isupper() else "function"
            summary = xrefs(d["summary"], docs).replace("|", "\\|")
            out.append(f"| [`{d['name']}`](#{d['label']}) | {kind} | {summary} |")
        out.append("")
    return "\n".join(out)


# The line a `source` link points to (`#L-n`) gets its number highlighted.
_TARGET_CSS = (
    '<style>.highlight a[id^="L-"]:target + a .linenos { background: #fde68a; color: #000; }'
    ' .highlight a[id^="L-"] { scroll-margin-top: 4em; }</style>\n'
)


def source_pages(html_of_nb: dict) -> dict:
    "One page per exported module: its code highlighted (Pygments), each line anchored `#L-n`, linked to its notebook."
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    lib, repo, files = _lib_path(), repository_url(), {}
    branch = _config().get("tool", {}).get("nbdev", {}).get("branch", "main")
    for f in sorted(lib.rglob("*.py")):
        rel = f.relative_to(lib.parent)  # the path in the repository (the package sits at its root)
        code = f.read_text(encoding="utf-8")
        name = f"{SOURCE}/{f.relative_to(lib.parent).with_suffix('')}"
        html = highlight(
            code,
            PythonLexer(),
            HtmlFormatter(linenos="inline", lineanchors="L", anchorlinenos=True, cssclass="highlight", wrapcode=True),
        )
        head = [f"---\norphan: true\n---\n\n# `{rel.as_posix()}`\n"]
        nb = re.search(r"File to edit: \.\./nbs/(\S+?\.ipynb)", code)
        if nb and nb.group(1) in html_of_nb:
            head.append(
                f"Exported from the notebook `nbs/{nb.group(1)}`, explained on [its page]"
                f"({_relative(html_of_nb[nb.group(1)], name)}.ipynb)."
            )
        if repo:
            head.append(f"In the repository: <{repo}/blob/{branch}/{rel.as_posix()}>")
        files[Path(name + ".md")] = "\n\n".join(head) + "\n\n```{raw} html\n" + _TARGET_CSS + html + "\n```\n"
    return files


def _sync(files: dict):
    "Make docs/nbs/ hold exactly `files`, rewriting only what changed (so Sphinx re-reads only changed pages)."
    for rel, content in files.items():
        data = (
            content
            if isinstance(content, bytes)
            else (content if isinstance(content, str) else json.dumps(content, indent=1, ensure_ascii=False)).encode(
                "utf-8"
            )
        )
        dst = STAGE / rel
        if dst.exists() and dst.read_bytes() == data:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(data)
    for f in sorted(STAGE.rglob("*"), reverse=True) if STAGE.exists() else []:
        if f.is_file() and f.relative_to(STAGE) not in files:
            f.unlink()
        elif f.is_dir() and not any(f.iterdir()):
            f.rmdir()


def _toctree(caption: str, names: list[str]) -> str:
    return "```{toctree}\n:hidden:\n:caption: " + caption + "\n\n" + "\n".join(names) + "\n```\n"


def _toc(pages, reference: bool = False) -> str:
    "The sidebar's table of contents (hidden toctrees, one per section), for the root page."
    groups, named = [], {pick for _, pick in SECTIONS if isinstance(pick, str)}
    for caption, pick in SECTIONS:
        if isinstance(pick, str):
            names = [p for p, _, n, folder in pages if folder == pick]
        else:
            names = [p for p, _, n, folder in pages if n is not None and not folder and pick(n)]
        if names:
            groups.append((caption, names))
    other = [p for p, _, n, folder in pages if n is None and p != "index" and not folder]
    if other:
        groups.append(("More", other))
    for folder in sorted({f for *_, f in pages if f and f not in named}):
        groups.append((folder.replace("_", " ").capitalize(), [p for p, _, n, f in pages if f == folder]))
    if reference:
        groups.append(("Reference", [REFERENCE]))
    return "\n".join(_toctree(c, names) for c, names in groups)


def sphinx(strict: bool = False) -> int:
    "Render docs/nbs/ with the configuration in docs/conf.py into docs/_build/html."
    from sphinx.cmd.build import build_main

    args = ["-b", "html", "-c", str(DOCS), "-q", "-d", str(DOCS / "_build" / "doctrees"), str(STAGE), str(OUT)]
    if strict:
        args.insert(0, "-W")
    return build_main(args)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clean", action="store_true", help="remove _proc/, docs/nbs/ and docs/_build/ first")
    ap.add_argument("--strict", action="store_true", help="treat Sphinx warnings as errors")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    if a.clean:
        for d in (PROC, STAGE, DOCS / "_build"):
            shutil.rmtree(d, ignore_errors=True)
    proc = process_notebooks(force=a.clean)
    pages = stage(proc)
    print(f"staged {len(pages)} pages: " + ", ".join(p for p, *_ in pages), flush=True)
    rc = sphinx(a.strict)
    print(f"{'built' if rc == 0 else 'FAILED'}: {OUT / 'index.html'} ({time.perf_counter() - t0:.1f} s)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
