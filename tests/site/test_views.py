"""The site-wide views: the answer while the database is down, the health check."""

import requests

from benchsite.views import RETRY_AFTER_S, UNAVAILABLE


def test_database_stopped_hard_gives_503_with_retry_after_then_recovers(site):
    with site.server(replica=False) as server:
        for path in ("/", "/healthz"):
            assert requests.get(server.url + path).status_code == 200
        site.primary.stop_immediate()
        try:
            for path in ("/", "/healthz", "/", "/drives/corsair-force-100gb/"):
                response = requests.get(server.url + path)
                assert response.status_code == 503, (path, response.text[:300])
                assert response.headers["Retry-After"] == str(RETRY_AFTER_S)
                assert response.headers["Cache-Control"] == "no-store"
                assert UNAVAILABLE in response.text
                assert "Traceback" not in response.text
                assert "Content-Security-Policy" in response.headers
            # The API answers with its one error body, as JSON.
            api = requests.get(server.url + "/api/v1/manufacturers/")
            assert api.status_code == 503 and api.headers["Retry-After"] == str(RETRY_AFTER_S)
            assert api.json() == {"detail": UNAVAILABLE, "errors": []}
        finally:
            site.primary.start()
        # The workers' broken connections fail their health check and are replaced.
        for _ in range(4):
            assert requests.get(f"{server.url}/").status_code == 200
            assert requests.get(f"{server.url}/healthz").text == "ok\n"
