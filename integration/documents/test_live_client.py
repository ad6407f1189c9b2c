"""The client of a live query, `GET /livestate.js` (docs/api.md, "Live queries"), in a real browser: a page of
the user's own (`--public`) imports the module; writes made through HTTP (and a reset) reach it, and it holds
what a `GET` of its URL answers, item for item and in order; it resumes after the server restarts; the
function `live` returns closes it."""
import gzip
import json
import re
import time

import pytest

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from browser import chrome  # noqa: E402
from livestate import Server  # noqa: E402

DB = {
    "posts": [{"id": 1, "title": "b", "n": 1}, {"id": 2, "title": "d", "n": 2}, {"id": 3, "title": "a", "n": 3}],
    "tags": [{"id": "x", "label": "one"}, {"id": "1", "label": "text id"}],
}

# The page: follows the live query named in its own URL's `q`, and shows what it holds to the test.
PAGE_JS = """
import { live } from "/livestate.js";
const query = new URLSearchParams(location.search).get("q");
window.held = { items: null, total: null, calls: 0, statuses: [] };
window.stop = live(query, (items, { total }) => {
  window.held.items = items;
  window.held.total = total;
  window.held.calls += 1;
}, { onStatus: (status) => window.held.statuses.push(status), retry: 500 });
"""


@pytest.fixture
def driver():
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = chrome(options)
    yield browser
    browser.quit()


@pytest.fixture
def site(tmp_path):
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text(
        '<!doctype html><meta charset="utf-8"><title>t</title><script type="module" src="/page.js"></script>')
    (folder / "page.js").write_text(PAGE_JS)
    (folder / "favicon.ico").write_bytes(b"")
    return folder


def held(driver):
    return driver.execute_script("return window.held")


def holds_get(server, driver, query):
    """Waits until the page holds what `GET query` answers, with its total."""
    def same(d):
        state = held(d)
        status, headers, body = server.call("GET", query)
        return state and state["items"] == body and state["total"] == int(headers["X-Total-Count"])
    WebDriverWait(driver, 10).until(same, f"the page never held GET {query}")


def open_page(driver, server, query):
    driver.get(f"{server.base}/?q={query.replace('&', '%26')}")
    holds_get(server, driver, query)


@pytest.mark.parametrize("query", ["/posts", "/posts?_sort=title&_limit=2", "/posts?n_gte=2&_sort=n&_order=desc"])
def test_a_page_importing_the_module_holds_what_get_answers_through_writes_and_a_reset(
        data_file, serve, driver, site, query):
    server = serve(data_file(DB), "--public", str(site))
    open_page(driver, server, query)
    for method, path, body in [("POST", "/posts", {"title": "0", "n": 9}), ("PATCH", "/posts/2", {"title": "0a"}),
                               ("DELETE", "/posts/1", None), ("PUT", "/posts/3", {"title": "z", "n": 0}),
                               ("POST", "/db/reset", None)]:
        assert server.call(method, path, body)[0] in (200, 201), (method, path)
        holds_get(server, driver, query)
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_ids_compare_by_their_text(data_file, serve, driver, site):
    server = serve(data_file(DB), "--public", str(site))
    open_page(driver, server, "/tags")
    # The item whose id is the text "1", reached by the path's 1, changed and then deleted.
    assert server.call("PATCH", "/tags/1", {"label": "changed"})[0] == 200
    holds_get(server, driver, "/tags")
    assert server.call("DELETE", "/tags/1")[0] == 200
    holds_get(server, driver, "/tags")
    assert [tag["id"] for tag in held(driver)["items"]] == ["x"]


def test_it_resumes_after_the_server_restarts_and_stops_when_closed(data_file, serve, driver, site):
    path = data_file(DB)
    server = serve(path, "--public", str(site))
    open_page(driver, server, "/posts")
    port = server.port
    server.stop()
    WebDriverWait(driver, 10).until(lambda d: "reconnecting" in held(d)["statuses"] or "offline" in held(d)["statuses"])
    again = Server(str(path), "--public", str(site), "--port", str(port), data=f"{path}.livestate", public=None)
    again.start()
    try:
        assert again.port == port
        assert again.call("POST", "/posts", {"title": "after the restart"})[0] == 201
        holds_get(again, driver, "/posts")
        assert held(driver)["statuses"][-1] == "live"
        calls = held(driver)["calls"]
        driver.execute_script("window.stop()")
        assert held(driver)["statuses"][-1] == "closed"
        again.call("POST", "/posts", {"title": "unseen"})
        again.call("POST", "/db/reset")
        time.sleep(1)
        assert held(driver)["calls"] == calls, "a closed query took another change"
        assert not any(item["title"] == "unseen" for item in held(driver)["items"])
    finally:
        again.stop()


def test_the_module_is_small_plain_javascript(data_file, serve):
    server = serve(data_file(DB))
    response = server.request("GET", "/livestate.js")
    assert response.status == 200 and response.header("Content-Type").startswith("text/javascript")
    source = response.body.decode()
    assert "export function live(" in source and not re.search(r"^\s*import ", source, re.M), "no dependency"
    assert len(gzip.compress(response.body)) < 4096
    # The seeds serve it too, and both built-in pages import it.
    with Server() as seeds:
        assert seeds.request("GET", "/livestate.js").body == response.body
        assert 'from "/livestate.js"' in seeds.request("GET", "/app.js").body.decode()
    assert 'from "/livestate.js"' in server.request("GET", "/_livestate/page.js").body.decode()
    assert json.loads(server.request("GET", "/db").body)["posts"] == DB["posts"]
