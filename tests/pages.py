"""Every kind of page the site shows a reader, at addresses of the demo (`load_demo` loaded):
each page route by its URL name, with every run, drive and ranking of the demo, and the pages
a route shows for a query (a filter, a 400, the pickers' candidates) or to a signed-in user.
Tests that hold a rule over every page (no sideways scrolling, numbers written one way, the
400 of a query parameter) read them here; `test_every_page_route_has_pages` fails for a
route added without its pages."""

from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver

from drives.models import Controller, Drive, NandType
from results.models import ConsistencySeries, Run, SaturationSeries, Test
from results.permissions import REVIEWER_GROUP
from results.selectors.rankings import suites_with_tests

# Routes that answer no page of their own: data (feeds, exports, images, files, JSON), a
# fragment htmx swaps into a page (the pickers' options), the admin, the API and its
# documentation (drf-spectacular's), the health check, signing out.
NOT_PAGES = {
    "bench:pick",
    "bench:compare_csv",
    "bench:compare_markdown",
    "bench:compare_chart",
    "bench:leaderboard_chart",
    "bench:value_chart",
    "bench:run_document",
    "bench:runs_feed",
    "bench:drive_feed",
    "bench:test_feed",
    "bench:loadgen_file",
    "bench:data_file",
    "health",
    "schema",
    "api-docs",
    "result-document-schema",
    "logout",
}
NOT_PAGE_NAMESPACES = ("admin", "api")

# Demo drives compared: measured, latency-only and published sides; WSAT and saturation.
PAIRS = [
    ("red-hat-virtio-blk-virtual-disk", "linux-zram-compressed-ram-disk"),
    ("crucial-m4-256gb", "crucial-c300"),
    ("intel-x25-m", "ocz-vertex"),
]


def route_names() -> set[str]:
    """Every named route of the site, as reverse() names it (namespace:name)."""

    def walk(patterns, prefix: str):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                space = pattern.namespace
                yield from walk(pattern.url_patterns, f"{prefix}{space}:" if space else prefix)
            elif isinstance(pattern, URLPattern) and pattern.name:
                yield prefix + pattern.name

    return set(walk(get_resolver().url_patterns, ""))


def page_routes() -> set[str]:
    return {
        name
        for name in route_names()
        if name not in NOT_PAGES and name.split(":")[0] not in NOT_PAGE_NAMESPACES
    }


def load() -> None:
    call_command("load_demo", verbosity=0)


def demo_pages(*, dump: str | None = None) -> dict[str, list[str]]:
    """The demo's pages by route name (the demo loaded); `dump`: the name of a dump made
    (results.dumps), whose page is then listed too."""
    # Every run but a held one (whose page is its submitter's): withdrawn runs keep theirs.
    runs = list(Run.objects.exclude(status=Run.Status.HELD).order_by("pk"))
    drives = list(Drive.objects.real().order_by("pk").values_list("slug", flat=True))
    with_saturation = SaturationSeries.objects.values_list("run__drive__slug", flat=True)
    wsat_drive = (
        SaturationSeries.objects.filter(test__identifier="wsat-4k-qd32")
        .values_list("run__drive__slug", flat=True)
        .first()
    )
    tests = [t.identifier for suite in suites_with_tests() for t in suite.tests.all()]
    consistency = Test.objects.filter(pk__in=ConsistencySeries.objects.values("test")).values_list(
        "identifier", flat=True
    )
    many = [PAIRS[0][0], PAIRS[1][0], PAIRS[2][0], PAIRS[0][1]]
    compared = [
        *(f"/bench/compare/{a}/{b}/" for a, b in PAIRS),
        "/bench/compare/" + "/".join(many[:3]) + "/",
        "/bench/compare/" + "/".join(many) + "/",
    ]
    if wsat_drive:
        other = next(s for s in with_saturation if s != wsat_drive)
        compared += [
            f"/bench/compare/{wsat_drive}/{other}/",
            f"/bench/compare/{wsat_drive}/{other}/?wsat_x=bytes",
        ]
    pages = {
        "drives:home": ["/", "/?kind=ssd&capacity_min=100", "/?page=1"],
        "bench:drive": [f"/drives/{slug}/" for slug in drives]
        + ([f"/drives/{wsat_drive}/?wsat_x=bytes"] if wsat_drive else []),
        "bench:compare_start": ["/bench/compare/", "/bench/compare/?a=intel&b=crucial"],
        "bench:compare": compared,
        "bench:compare_chart_embed": [
            f"/bench/compare/{PAIRS[0][0]}/{PAIRS[0][1]}/chart/consistency-0/embed/",
            f"/bench/compare/{PAIRS[2][0]}/{PAIRS[2][1]}/chart/randwrite-4k-qd3-8g/embed/",
        ],
        "bench:run": [f"/bench/runs/{run.pk}/" for run in runs],
        "bench:tests": ["/bench/tests/"],
        "bench:leaderboard": [f"/bench/tests/{t}/" for t in tests]
        + [f"/bench/tests/{t}/?metric=latency" for t in tests[:1]],
        "bench:leaderboard_chart_embed": [
            f"/bench/tests/{t}/chart/ranking/embed/" for t in [*tests[:1], *consistency[:1]]
        ],
        "bench:value": ["/bench/value/", *(f"/bench/value/?highlight={d}" for d in drives[:1])],
        "bench:value_chart_embed": ["/bench/value/chart/frontier/embed/"],
        "bench:methodology": ["/bench/methodology/"],
        "bench:loadgen": ["/bench/loadgen/"],
        "bench:controller": [f"/bench/controllers/{c.slug}/" for c in Controller.objects.all()],
        "bench:nand": [f"/bench/nand/{n.slug}/" for n in NandType.objects.all()],
        "bench:data": ["/data/"],
        "bench:data_dump": [f"/data/{dump}/"] if dump else [],
        "bench:upload": ["/bench/upload/"],  # signed in as a reviewer()
        "login": ["/accounts/login/"],
    }
    return pages


# Pages that are not a route's own: an address no route answers, and a query a page refuses.
ERROR_PAGES = ["/no-such-page/", "/?kind=floppy", "/bench/tests/no-such-test/"]
SIGNED_IN = {"bench:upload"}  # routes whose page a reviewer sees once signed in


def reviewer() -> User:
    """A reviewer (who may upload), to sign in for the SIGNED_IN pages."""
    user, _ = User.objects.get_or_create(username="pages-reviewer")
    user.groups.add(Group.objects.get_or_create(name=REVIEWER_GROUP)[0])
    return user


def every_page(pages: dict[str, list[str]]) -> list[str]:
    return [path for paths in pages.values() for path in paths] + ERROR_PAGES
