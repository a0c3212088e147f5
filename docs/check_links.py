"""Check every internal link of the built site (`python docs/check_links.py [docs/_build/html]`).

Every `href` of `<a>` and `<link>` and every `src` of `<img>` and `<script>` that does not leave the site
(no scheme such as `https:`, no `//host`) must name a file that exists, and its `#anchor`, if any, an
`id` (or `name`) in that page. Prints how many links were checked and lists the broken ones; the exit
status is 1 if any is broken (or if there is no site), 0 otherwise.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

DEFAULT = Path(__file__).resolve().parent / "_build" / "html"
LINK_ATTRS = {"a": "href", "link": "href", "img": "src", "script": "src"}


class _Page(HTMLParser):
    "The anchors (`id`, `name`) a page defines and the links (tag, url) it makes."

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("id", "name"):
            if a.get(k) and (k == "id" or tag == "a"):
                self.ids.add(a[k])
        url = a.get(LINK_ATTRS.get(tag, ""))
        if url is not None and not (tag == "link" and "preconnect" in (a.get("rel") or "")):
            self.links.append((tag, url))

    handle_startendtag = handle_starttag


def parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    return p


def is_internal(url: str) -> bool:
    s = urlsplit(url)
    return not (s.scheme or s.netloc)


def check(site: Path) -> tuple[int, list[str]]:
    "(links checked, broken links as 'page: tag url (why)') over every HTML file under `site`."
    site = site.resolve()
    pages = {f: parse(f) for f in sorted(site.rglob("*.html"))}
    ids = {f: p.ids for f, p in pages.items()}
    checked, broken = 0, []
    for f, p in pages.items():
        for tag, url in p.links:
            if not url or not is_internal(url):
                continue
            checked += 1
            s = urlsplit(url)
            target = f if not s.path else (f.parent / unquote(s.path)).resolve()
            if s.path.endswith("/") or target.is_dir():
                target = target / "index.html"
            where = f.relative_to(site)
            if not target.is_relative_to(site):
                broken.append(f"{where}: {tag} {url} (leaves the site)")
                continue
            if not target.exists():
                broken.append(f"{where}: {tag} {url} (no file {target.relative_to(site)})")
                continue
            frag = unquote(s.fragment)
            if frag and target.suffix == ".html":
                known = ids[target] if target in ids else parse(target).ids
                if frag not in known:
                    broken.append(f"{where}: {tag} {url} (no anchor #{frag})")
    return checked, broken


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    site = Path(argv[0]) if argv else DEFAULT
    if not (site / "index.html").exists():
        print(f"no site at {site} (run python docs/build.py first)")
        return 1
    checked, broken = check(site)
    for b in broken:
        print("BROKEN", b)
    print(f"links: {checked} internal links checked, {len(broken)} broken ({len(list(site.rglob('*.html')))} pages)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
