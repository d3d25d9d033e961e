"""The headers of every static file WhiteNoise serves (settings.WHITENOISE_ADD_HEADERS_FUNCTION,
production): WhiteNoise answers /static/ before the middleware that give pages their policy
runs, so a file gets the pages' Content-Security-Policy (django-csp's, built from
settings.CONTENT_SECURITY_POLICY) and X-Frame-Options (settings.X_FRAME_OPTIONS) here. The
SecurityMiddleware before WhiteNoise adds nosniff and the referrer policy to them as to pages."""

from wsgiref.headers import Headers

from csp.utils import build_policy
from django.conf import settings


def add_headers(headers: Headers, path: str, url: str) -> None:
    headers["Content-Security-Policy"] = build_policy()
    headers["X-Frame-Options"] = settings.X_FRAME_OPTIONS
