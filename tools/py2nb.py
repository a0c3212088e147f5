"""Authoring helper: turn a jupytext percent-format script into a notebook in nbs/.

    python tools/py2nb.py draft.py nbs/00_core.ipynb

Cells are separated by `# %%` (code) and `# %% [markdown]` (markdown). The draft is not
committed; the notebook is the source of truth once written.
"""
import sys, jupytext

src, dst = sys.argv[1], sys.argv[2]
nb = jupytext.read(src, fmt="py:percent")
nb.metadata = {"kernelspec": {"display_name": "python3", "language": "python", "name": "python3"}}
jupytext.write(nb, dst, fmt="ipynb")
