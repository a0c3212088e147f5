"""Sphinx configuration for the mlc_lit site; `python docs/build.py` stages the notebooks and calls Sphinx."""

import re
from pathlib import Path

_root = Path(__file__).resolve().parents[1]
_version = re.search(r'__version__\s*=\s*"([^"]+)"', (_root / "mlc_lit" / "__init__.py").read_text()).group(1)

project = "mlc_lit"
author = "mlc_lit developers"
copyright = "mlc_lit developers"
release = version = _version

extensions = [
    "myst_nb",  # notebooks and Markdown (MyST)
    "sphinx-mathjax-offline",  # MathJax copied into _static: math renders without a CDN (the module name has hyphens)
]
source_suffix = {".ipynb": "myst-nb", ".md": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

# Notebooks are committed with their outputs; the site never executes them.
nb_execution_mode = "off"
nb_merge_streams = True
nb_ipywidgets_js = {}  # no widget JavaScript from a CDN
nb_output_stderr = "show"
myst_enable_extensions = [
    "dollarmath",
    "amsmath",
    "colon_fence",
    "deflist",
    "attrs_inline",
]  # attrs_inline: show_doc's [source](...){target=...} links
myst_dmath_double_inline = True
myst_heading_anchors = 4
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "misc.highlighting_failure"]

html_theme = "furo"
html_title = f"mlc_lit {version}"
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {"navigation_with_keys": True}
