"""The web benchmark (make bench-web): production settings, served on loopback, with the
synthetic seed_scale catalog shown as if it were real so that every page works on 10,000
drives. Never used to serve anyone."""

from .prod import *  # noqa: F403
from .prod import INSTALLED_APPS, MIDDLEWARE, REST_FRAMEWORK, env

ALLOWED_HOSTS = ["127.0.0.1"]
INSTALLED_APPS = [*INSTALLED_APPS, "loadtests"]  # the benchmark harness (not the site)
BENCH_SHOW_SYNTHETIC = True
ROOT_URLCONF = "loadtests.urls"
SECURE_HSTS_SECONDS = 0
# The pages as computed, unless a benchmark's cached mode asks for the response cache.
BENCH_RESPONSE_CACHE = env("BENCH_RESPONSE_CACHE", "0") == "1"
# bench_load: where each request's time went (queued, its own, database, copies read again,
# after the response), appended to this file. First in the chain, so that a request's own
# time starts when the worker takes it up.
BENCH_TIMING_LOG = env("BENCH_TIMING_LOG", "")
MIDDLEWARE = ["loadtests.request_timing.RequestTimingMiddleware", *MIDDLEWARE]
# bench_load's reviewers upload without pause: the per-reviewer upload limit would make
# most of their requests 429s, and the benchmark measures uploads, not the limit.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {
        **REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
        "uploads": "1000000/hour",
    },
}
