"""Regenerate README.md from nbs/index.ipynb (`python docs/readme.py`; the notebook is the source).

nbdev's own `nbdev-readme` needs Quarto, which is unavailable here, so this does the same with
nbconvert's MarkdownExporter. Cells are filtered the way nbdev's docs are: cells marked `#| hide`,
`#| export*`, `#| default_exp` or `#| include: false` are dropped, `#| echo: false` keeps only the
output, and the `#|` lines themselves never reach the README. The notebook is not executed; its
committed outputs are used (images go to `README_files/`).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
from nbconvert import MarkdownExporter

ROOT = Path(__file__).resolve().parents[1]


def _directives(src: str) -> tuple[dict, str]:
    "Split leading `#| key: value` lines off a code cell's source."
    opts, lines = {}, src.splitlines()
    while lines and lines[0].lstrip().startswith("#|"):
        body = lines.pop(0).lstrip()[2:].strip()
        key, sep, value = body.partition(":")
        if not sep:
            key, _, value = body.partition(" ")  # nbdev style: `#| export`, `#| default_exp core`
        opts[key.strip()] = value.strip() or True
    return opts, "\n".join(lines)


def _callouts_to_github(text: str) -> str:
    "Quarto callouts (`::: {.callout-note}` ... `:::`) as GitHub alerts (`> [!NOTE]`)."

    def alert(m):
        body = "\n".join("> " + line if line else ">" for line in m.group(2).strip("\n").splitlines())
        return f"> [!{m.group(1).upper()}]\n{body}"

    return re.sub(
        r"^:::\s*\{\.callout-(note|tip|warning|important|caution)[^}]*\}\s*\n(.*?)^:::\s*$",
        alert,
        text,
        flags=re.M | re.S,
    )


def clean_notebook(nb):
    "Drop hidden/exported cells and `#|` lines, as nbdev does for the docs."
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "raw":
            continue
        if cell.cell_type == "code":
            opts, code = _directives(cell.source)
            if any(k in opts for k in ("hide", "export", "exporti", "default_exp")) or opts.get("include") == "false":
                continue
            cell.source = code
            if opts.get("echo") == "false":
                cell.metadata["transient"] = {"remove_source": True}  # output only
            if opts.get("output") == "false":
                cell.outputs = []
            if not code.strip() and not cell.outputs:
                continue
        elif cell.cell_type == "markdown":
            cell.source = _callouts_to_github(cell.source)
        cells.append(cell)
    nb.cells = cells
    return nb


def render(src: Path) -> tuple[str, dict]:
    nb = clean_notebook(nbformat.read(src, as_version=4))
    if "name" not in nb.metadata.get("language_info", {}):  # nbdev-clean strips it; code fences need it
        nb.metadata["language_info"] = {"name": nb.metadata.get("kernelspec", {}).get("language", "python")}
    exporter = MarkdownExporter()
    body, resources = exporter.from_notebook_node(nb, resources={"output_files_dir": "README_files"})
    body = re.sub(r"[ \t]+\n", "\n", body)
    body = re.sub(r"\n{3,}", "\n\n", body).strip() + "\n"
    name = src.relative_to(ROOT).as_posix() if src.is_relative_to(ROOT) else src.name
    note = f"<!-- Generated from {name} by `make readme` (docs/readme.py); edit the notebook, not this file. -->\n\n"
    return note + body, resources.get("outputs", {})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nb", default=str(ROOT / "nbs" / "index.ipynb"), help="source notebook")
    ap.add_argument("--out", default=str(ROOT / "README.md"), help="where to write the Markdown")
    a = ap.parse_args(argv)
    src, out = Path(a.nb).resolve(), Path(a.out).resolve()
    if not src.exists():
        print(f"no {src}: nothing to render", file=sys.stderr)
        return 1
    text, files = render(src)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    for name, data in files.items():
        p = out.parent / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    print(f"wrote {out} ({len(text.splitlines())} lines{f', {len(files)} images' if files else ''}) from {src.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
