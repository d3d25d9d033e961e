"""Which stored URLs a page may turn into links. No Django here: the result-document
checks (results/documents.py) use the same rule as the templates."""

import re

# http or https, then no white space or control character anywhere: a browser cannot read
# such a string as any other scheme (javascript:, data:, vbscript:...).
HTTP_URL = re.compile(r"https?://[^\s\x00-\x1f\x7f]+", re.IGNORECASE)


def is_http_url(url: str) -> bool:
    return HTTP_URL.fullmatch(url) is not None


def safe_http_url(url: str) -> str:
    """The URL when it is a plain http(s) URL, else "". Templates render stored URLs only
    through this (Citation.safe_url, Price.safe_source_url)."""
    return url if url and is_http_url(url) else ""
