# Documentation commands (see docs/README.md). Python is whatever `python` is on PATH; override with PYTHON=...
PYTHON ?= python

.PHONY: docs readme docs-clean docs-serve docs-check

docs:        ## render the site into docs/_build/html (never executes notebooks)
	$(PYTHON) docs/build.py

readme:      ## regenerate README.md from nbs/index.ipynb
	$(PYTHON) docs/readme.py

docs-clean:  ## remove _proc/, docs/nbs/ and docs/_build/
	rm -rf _proc docs/nbs docs/_build

docs-serve: docs  ## build, then serve the site on http://127.0.0.1:8000
	$(PYTHON) -m http.server 8000 --bind 127.0.0.1 --directory docs/_build/html

docs-check:  ## what CI checks: build from scratch with no warning, internal links, headless Chromium
	$(PYTHON) docs/build.py --clean --strict
	$(PYTHON) docs/check_links.py
	$(PYTHON) docs/check_browser.py
