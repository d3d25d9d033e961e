"""An image's SVG rasterised to PNG by resvg, with the DejaVu fonts only."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from results.chart_images.figure import WIDTH
from results.chart_images.text import IMAGE_FONT

PNG_SCALE = 1  # PNG pixels per SVG pixel


def svg_size(svg: str) -> tuple[int, int]:
    match = re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', svg)
    return (int(match[1]), int(match[2])) if match else (WIDTH, 0)


def render_png(svg: str) -> bytes:
    """The SVG rasterised by resvg with the DejaVu fonts (nothing else from the system):
    PNG_SCALE pixels a unit, on white."""
    import resvg_py  # a compiled module: loaded only where an image is drawn

    fonts = Path(settings.BENCH_CHART_FONTS)
    if not (fonts / "DejaVuSans.ttf").is_file():  # else resvg draws no text at all
        raise ImproperlyConfigured(
            f"no DejaVuSans.ttf in {fonts} (BENCH_CHART_FONTS): install fonts-dejavu-core"
        )
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg,
            skip_system_fonts=True,
            font_dirs=[str(fonts)],
            font_family=IMAGE_FONT,
            sans_serif_family=IMAGE_FONT,
            background="#ffffff",
            zoom=PNG_SCALE if PNG_SCALE != 1 else None,
        )
    )
