"""Atom feeds of newly published runs (Django's syndication framework): every run, or the
runs of the drives the catalog's filters keep (/bench/runs/feed/ with DriveFilter's
parameters), of one drive (/drives/<slug>/feed/) and holding one test
(/bench/tests/<id>/feed/). Each entry links to its run's page; what a feed lists is
results.selectors.feeds.run_feed's. The catalog, drive and ranking pages advertise their
feed (`<link rel="alternate">`)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.syndication.views import Feed
from django.http import HttpResponse
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import format_html

from drives.filters import DriveFilter
from drives.models import Drive
from results.selectors.feeds import FeedRun, RunFeed, run_feed
from results.views.common import HtmxHttpRequest, bad_request

SITE = "Bench"
# The catalog's query parameters that are not filters: a feed lists the newest runs.
NOT_FILTERS = ("page",)


@dataclass(frozen=True, slots=True)
class Shown:
    """A feed as one request reads it: its runs, what it is called, the page it is the
    feed of and its own address (absolute, the query kept: also its id)."""

    feed: RunFeed
    title: str
    subtitle: str
    page: str
    url: str


class BadQuery(Exception):
    """The query's filters are not valid (`errors`, as a form gives them)."""

    def __init__(self, errors) -> None:
        super().__init__("bad feed query")
        self.errors = errors


class RunsFeed(Feed):
    """What every runs feed writes of a run; get_object (each feed's own) says which runs."""

    feed_type = Atom1Feed
    author_name = SITE  # each entry names its own author where the run has one

    def __call__(self, request: HtmxHttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return super().__call__(request, *args, **kwargs)
        except BadQuery as bad:
            return bad_request(request, bad.errors)

    def title(self, obj: Shown) -> str:
        return obj.title

    def subtitle(self, obj: Shown) -> str:
        return obj.subtitle

    def link(self, obj: Shown) -> str:
        return obj.page

    def feed_url(self, obj: Shown) -> str:
        return obj.url

    def feed_guid(self, obj: Shown) -> str:
        return obj.url

    def items(self, obj: Shown) -> list[FeedRun]:
        return obj.feed.entries

    def item_title(self, item: FeedRun) -> str:
        run = item.run
        tool = f"{run.tool_name} {run.tool_version}".strip()
        return f"{run.drive}: {tool}, {run.get_source_display()}"

    def item_link(self, item: FeedRun) -> str:
        return item.run.get_absolute_url()

    def item_description(self, item: FeedRun) -> str:
        """HTML (Atom's summary type="html"): what the run measured, where it comes from."""
        run = item.run
        parts = [format_html("Tests: {}.", ", ".join(item.tests)) if item.tests else "No tests."]
        if run.citation is not None:
            parts.append(format_html("Figures published in {}.", str(run.citation)))
        if not run.complete:
            parts.append("An interrupted run: its last test is partial.")
        if run.drive.needs_review:
            parts.append("Its drive, added by an upload, awaits staff review: not ranked yet.")
        return " ".join(parts)

    def item_author_name(self, item: FeedRun) -> str | None:
        run = item.run
        if run.submitter is not None:
            return run.submitter.get_username()
        if run.citation is not None:
            return run.citation.publisher
        return None

    def item_pubdate(self, item: FeedRun):
        return item.run.ingested_at

    def item_updateddate(self, item: FeedRun):
        return item.run.ingested_at


def _address(request: HtmxHttpRequest) -> str:
    return request.build_absolute_uri(request.get_full_path())


class CatalogRunsFeed(RunsFeed):
    """Every published run, or (with DriveFilter's parameters, as the catalog takes them)
    the runs of the drives the filter keeps. An invalid filter is the catalog's 400."""

    def get_object(self, request: HtmxHttpRequest) -> Shown:
        query = request.GET.copy()
        for name in NOT_FILTERS:
            query.pop(name, None)
        filters = DriveFilter(query, queryset=Drive.objects.all())
        if not filters.is_valid():
            raise BadQuery(filters.errors)
        page = reverse("drives:home")
        if any(True for _ in filters.chosen()):
            return Shown(
                run_feed(drives=filters.qs),
                f"{SITE}: new runs of the drives filtered",
                "Newly published runs of the drives the catalog's filters keep.",
                f"{page}?{query.urlencode()}",
                _address(request),
            )
        return Shown(
            run_feed(),
            f"{SITE}: new runs",
            "Newly published benchmark runs of every drive.",
            page,
            _address(request),
        )


class DriveRunsFeed(RunsFeed):
    """One drive's newly published runs; 404 for a drive not in the catalog."""

    def get_object(self, request: HtmxHttpRequest, slug: str) -> Shown:
        feed = run_feed(drive=slug)
        drive = feed.subject
        return Shown(
            feed,
            f"{SITE}: new runs of {drive}",
            f"Newly published benchmark runs of {drive}.",
            reverse("bench:drive", args=[slug]),
            _address(request),
        )


class TestRunsFeed(RunsFeed):
    """The newly published runs holding one test; 404 for a test not in the catalog."""

    def get_object(self, request: HtmxHttpRequest, test_id: str) -> Shown:
        feed = run_feed(test=test_id)
        test = feed.subject
        return Shown(
            feed,
            f"{SITE}: new runs of {test.name}",
            f"Newly published benchmark runs with a result in {test.name}.",
            reverse("bench:leaderboard", args=[test_id]),
            _address(request),
        )


catalog_feed = CatalogRunsFeed()
drive_feed = DriveRunsFeed()
test_feed = TestRunsFeed()
