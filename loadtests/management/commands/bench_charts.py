"""Benchmark: a page's chart as an image, drawn by the site's renderer (results/chart_images:
SVG written in Python, PNG through resvg) beside Plotly's own static export (kaleido driving
Debian's chromium, the browser the browser tests use; never one kaleido downloads).

Two drives' measured runs are ingested, then the charts of their compare page, a
leaderboard and the value page are read through the pages' own chart sources. For each chart
and format it prints the median time of `--rounds` renders by each, kaleido's cold start (its
browser launched, the first image) and its warm time with its browser kept (kaleido's sync
server), the memory each holds (this process's peak RSS; the browser's processes' PSS), and
whether each image holds the numbers the page shows: the texts of the figure's marks (a
bar's figure, a point's words, its hover text) found in the image's text.

kaleido is not a dependency of the site: it is looked for on PYTHONPATH (`make
bench-charts` installs it into var/kaleido/ with pip, not into .venv; PYTHONPATH, not
sys.path, as choreographer starts the browser through a Python wrapper of its own), and the
kaleido rows are left out when it is missing.
"""

from __future__ import annotations

import html
import json
import os
import re
import resource
import statistics
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.test import RequestFactory

from drives.models import Price
from results import chart_images
from results.services import run_ingest
from results.synthetic import measured_document
from results.views import compare, leaderboards, value
from results.views.chart_images import Chart

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
WIDTH = chart_images.WIDTH


def _median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def _children(pid: int) -> list[int]:
    """A process's children, whichever of its threads started them."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except FileNotFoundError:
            continue
    return found


def _pss_kib(pid: int) -> int:
    """The proportional set size of a process and its descendants, in KiB."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            rollup = Path(f"/proc/{current}/smaps_rollup").read_text()
            total += int(re.search(r"^Pss:\s+(\d+)", rollup, re.M)[1])
            pending += _children(current)
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def _browser_pids() -> list[int]:
    """This process's children that run a chromium (choreographer's wrapper of it)."""
    return [
        pid
        for pid in _children(os.getpid())
        if "chrom" in Path(f"/proc/{pid}/cmdline").read_text(errors="ignore")
    ]


def _marks_numbers(figure: dict) -> set[str]:
    """The numbers the figure's marks say (their text, else their hover text): what the
    page's table shows beside the chart."""
    plain = chart_images.plain_figure(figure)
    said = set()
    for trace in plain.get("data") or []:
        texts = trace.get("text") or trace.get("hovertext") or []
        if isinstance(texts, str):
            texts = [texts]
        for text in texts:
            said.update(NUMBER.findall(html.unescape(re.sub(r"<[^>]+>", " ", str(text)))))
    return said


def _names(figure: dict) -> set[str]:
    """The traces' names (the first line of each legend entry: a drive's) as plain text."""
    plain = chart_images.plain_figure(figure)
    return {
        html.unescape(re.sub(r"<[^>]+>", "", re.split(r"<br\s*/?>", str(t["name"]))[0]))
        for t in plain.get("data") or []
        if t.get("name") and t.get("showlegend", True)
    }


def _image_text(svg: bytes | str) -> str:
    root = ET.fromstring(svg)
    return " ".join(
        "".join(e.itertext()) for e in root.iter() if e.tag in (f"{SVG}text", f"{SVG}title")
    )


def _faithful(figure: dict, svg: bytes | str) -> str:
    """How many of the marks' numbers and of the legend's names the image's text holds."""
    text = _image_text(svg)
    numbers, names = _marks_numbers(figure), _names(figure)
    found = len(numbers & set(NUMBER.findall(text)))
    named = sum(1 for name in names if name in text)
    return f"{found}/{len(numbers)} numbers, {named}/{len(names)} names"


class Kaleido:
    """Plotly's static export with the site's own Plotly bundle, the browser kept between
    images (kaleido's sync server)."""

    def __init__(self, browser: str):
        import kaleido  # optional: looked for only here

        self.kaleido = kaleido
        self.browser = browser

    def start(self) -> None:
        self.kaleido.start_sync_server(
            n=1,
            timeout=120,
            plotlyjs=str(Path(settings.BASE_DIR) / "static/vendor/plotly.min.js"),
            mathjax=False,  # else MathJax from a CDN: no network here
            path=self.browser,
            silence_warnings=True,
        )

    def stop(self) -> None:
        self.kaleido.stop_sync_server(silence_warnings=True)

    def render(self, chart: Chart, fmt: str) -> bytes:
        figure = chart_images.plain_figure(chart.figure)
        layout = dict(figure.get("layout") or {})
        layout["title"] = {"text": html.escape(chart.title, quote=False)}
        layout["margin"] = {**(layout.get("margin") or {}), "t": 80}
        height = float(layout.get("height", 400)) + 70
        layout["height"] = height
        return self.kaleido.calc_fig_sync(
            {"data": figure.get("data") or [], "layout": layout},
            opts={"format": fmt, "width": WIDTH, "height": height},
        )


class Command(BaseCommand):
    help = "A chart image by the site's renderer beside kaleido's (Plotly's static export)."

    def add_arguments(self, parser):
        parser.add_argument("--rounds", type=int, default=7)
        parser.add_argument(
            "--browser", default=os.environ.get("BROWSER_PATH", "/usr/bin/chromium")
        )

    def charts(self) -> dict[str, Chart]:
        drives = []
        for seed, maker, model, price in (
            (1, "Acme", "Fast One", 120),
            (2, "Bolt", "Slow Two", 90),
        ):
            document = measured_document(seed=seed, manufacturer=maker, model=model)
            drive = run_ingest(document=json.dumps(document), submitter=None).run.drive
            Price.objects.get_or_create(
                drive=drive,
                observed_on="2013-11-15",
                source="Bench benchmark",
                defaults={"amount": price, "currency": "USD"},
            )
            drives.append(drive)
        a, b = drives
        factory = RequestFactory()
        pair = compare.compare_charts(
            factory.get(f"/bench/compare/{a.slug}/{b.slug}/chart/x.svg"), a.slug, b.slug
        )
        ranking = leaderboards.ranking_charts(
            factory.get("/bench/tests/randwrite-4k-qd3-8g/chart/ranking.svg"),
            "randwrite-4k-qd3-8g",
        )
        frontier = value.value_charts(factory.get("/bench/value/chart/frontier.svg"))
        return {
            "compare bars (randread-4k-qd3)": pair["randread-4k-qd3"](),
            "compare consistency (2x2,000 points)": pair["consistency-0"](),
            "leaderboard (ranking)": ranking["ranking"](),
            "value (frontier)": frontier["frontier"](),
        }

    def timed(self, rounds: int, svg, png) -> tuple[float, float, bytes | str]:
        """The median ms of `svg()` and of `png()` over `rounds`, and the last SVG."""
        svgs, pngs = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            image = svg()
            svgs.append(time.perf_counter() - start)
            start = time.perf_counter()
            png(image)
            pngs.append(time.perf_counter() - start)
        return _median_ms(svgs), _median_ms(pngs), image

    def handle(self, *args, **options):
        call_command("migrate", verbosity=0)
        rounds = options["rounds"]
        charts = self.charts()
        try:
            kaleido = Kaleido(options["browser"])
        except ImportError:
            kaleido = None
            self.stdout.write("kaleido is not importable: the site's renderer only")

        text = chart_images.ImageText("", "Bench — http://testserver/")
        rows = []
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for name, chart in charts.items():
            svg_ms, png_ms, svg = self.timed(
                rounds,
                lambda chart=chart: chart_images.render_svg(chart.figure, text),
                chart_images.render_png,
            )
            # Its PNG is its SVG rasterised: the time of both.
            rows.append((name, "site", svg_ms, svg_ms + png_ms, _faithful(chart.figure, svg)))
        rss_site = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

        if kaleido:
            start = time.perf_counter()
            kaleido.start()
            kaleido.render(next(iter(charts.values())), "svg")
            cold = time.perf_counter() - start
            for name, chart in charts.items():
                svg_ms, png_ms, svg = self.timed(
                    rounds,
                    lambda chart=chart: kaleido.render(chart, "svg"),
                    lambda _, chart=chart: kaleido.render(chart, "png"),
                )
                rows.append((name, "kaleido", svg_ms, png_ms, _faithful(chart.figure, svg)))
            browser_kib = sum(_pss_kib(pid) for pid in _browser_pids())
            kaleido.stop()

        self.stdout.write(
            f"{rounds} rounds, median; {os.cpu_count()} CPUs; width {WIDTH} px\n"
            f"{'chart':38} {'renderer':8} {'SVG ms':>8} {'PNG ms':>8}  in the SVG's text"
        )
        for name, who, svg_ms, png_ms, faithful in rows:
            self.stdout.write(f"{name:38} {who:8} {svg_ms:8.1f} {png_ms:8.1f}  {faithful}")
        self.stdout.write(
            "site: PNG ms is the SVG drawn, then rasterised by resvg; this process's peak RSS "
            f"{rss_before // 1024} MiB before its images, {rss_site // 1024} MiB after them"
        )
        if kaleido:
            self.stdout.write(
                f"kaleido: cold start (browser launched, first SVG) {cold * 1000:.0f} ms; "
                f"its browser's processes hold {browser_kib // 1024} MiB (PSS) warm"
            )
