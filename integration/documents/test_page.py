"""The built-in page of a data file in a real browser (headless Chromium, Selenium): the resources with
live counts, a collection as a table whose rows appear, change and disappear as the data does."""
import json
import sys
from pathlib import Path

import pytest

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from browser import chrome  # noqa: E402
from livestate import ROOT  # noqa: E402


@pytest.fixture
def driver():
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1200,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = chrome(options)
    yield browser
    browser.quit()


def rows(driver):
    # NB: read in one script: the table is rebuilt on every change, so elements found one call earlier go stale.
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#view tbody tr'), (row) => row.dataset.id)")


def counts(driver):
    return driver.execute_script(
        "return Object.fromEntries(Array.from(document.querySelectorAll('[data-count]'),"
        " (e) => [e.dataset.count, e.textContent]))")


def test_the_page_lists_resources_and_keeps_the_table_live(data_file, serve, driver):
    server = serve(data_file({
        "posts": [{"id": 1, "title": "first"}, {"id": 2, "title": "second"}],
        "comments": [{"id": 1, "body": "c", "postId": 1}],
        "profile": {"name": "me"},
    }))
    driver.get(server.base + "/")
    wait = WebDriverWait(driver, 10, ignored_exceptions=(StaleElementReferenceException,))
    wait.until(lambda d: d.find_element(By.ID, "status").text == "Live")
    # NB: "Live" is the stream's state; the counts and the table arrive on their own live queries, later.
    expected = {"posts": "2", "comments": "1", "profile": "object"}
    wait.until(lambda d: counts(d) == expected)
    wait.until(lambda d: rows(d) == ["1", "2"])

    server.call("POST", "/posts", {"title": "third"})
    wait.until(lambda d: rows(d) == ["1", "2", "3"])
    server.call("PATCH", "/posts/1", {"title": "changed"})
    wait.until(lambda d: "changed" in d.find_element(By.CSS_SELECTOR, '#view tr[data-id="1"]').text)
    server.call("DELETE", "/posts/2")
    wait.until(lambda d: rows(d) == ["1", "3"])
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '[data-count="posts"]').text == "2")
    # The cascade of the delete reached the other collection's count too.
    server.call("DELETE", "/posts/1")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '[data-count="comments"]').text == "0")

    driver.find_element(By.CSS_SELECTOR, '[data-resource="profile"]').click()
    wait.until(lambda d: json.loads(d.find_element(By.CSS_SELECTOR, "#view pre").text) == {"name": "me"})
    driver.save_screenshot(str(ROOT / "artifacts" / "data-page.png"))
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_the_page_lists_a_list_of_values_plainly_and_leaves_out_schema(data_file, serve, driver):
    server = serve(data_file({
        "$schema": "./node_modules/json-server/schema.json",
        "tags": ["a", "b", 3],
        "posts": [{"id": 1, "title": "first"}],
        "one": [None],
    }))
    driver.get(server.base + "/")
    wait = WebDriverWait(driver, 10, ignored_exceptions=(StaleElementReferenceException,))
    wait.until(lambda d: counts(d) == {"tags": "3 values", "posts": "1", "one": "1 value"})
    # The first collection is shown first, live; a list of values is shown as its JSON.
    wait.until(lambda d: rows(d) == ["1"])
    driver.find_element(By.CSS_SELECTOR, '[data-resource="tags"]').click()
    wait.until(lambda d: json.loads(d.find_element(By.CSS_SELECTOR, "#view pre").text) == ["a", "b", 3])
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_public_serves_the_users_own_files_instead(data_file, serve, tmp_path):
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text("<p>mine</p>")
    server = serve(data_file({"posts": []}), "--public", str(folder))
    status, _, body = server.call("GET", "/")
    assert status == 200 and b"mine" in body


def test_many_collections_keep_live_counts_and_a_paged_table(data_file, serve, driver):
    content = {f"c{i}": [{"id": n, "v": n} for n in range(1, 4)] for i in range(6)}
    content["c0"] = [{"id": n, "v": n} for n in range(1, 121)]
    server = serve(data_file(content))
    driver.get(server.base + "/")
    wait = WebDriverWait(driver, 10, ignored_exceptions=(StaleElementReferenceException,))
    wait.until(lambda d: rows(d) == [str(n) for n in range(1, 51)])
    server.call("POST", "/c5", {"v": 9})
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '[data-count="c5"]').text == "4")
    driver.find_element(By.XPATH, "//button[contains(., 'Next')]").click()
    wait.until(lambda d: rows(d) == [str(n) for n in range(51, 101)])
    server.call("DELETE", "/c0/60")
    wait.until(lambda d: rows(d) == [str(n) for n in range(51, 102) if n != 60])
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_the_page_shows_resources_added_and_removed_by_a_save(data_file, serve, driver):
    import os
    path = data_file({"posts": [{"id": 1, "title": "first"}], "comments": [{"id": 1, "postId": 1}]})
    server = serve(path)
    driver.get(server.base + "/")
    wait = WebDriverWait(driver, 10, ignored_exceptions=(StaleElementReferenceException,))
    wait.until(lambda d: counts(d) == {"posts": "1", "comments": "1"})
    temp = path.with_name(".db.json.swp")
    temp.write_text(json.dumps({"posts": [{"id": 1, "title": "first"}], "notes": [{"id": 1}, {"id": 2}]}))
    os.rename(temp, path)  # as an editor saves
    wait.until(lambda d: counts(d) == {"posts": "1", "notes": "2"})
    server.call("POST", "/notes", {"text": "live"})
    wait.until(lambda d: counts(d).get("notes") == "3")
    driver.find_element(By.CSS_SELECTOR, '[data-resource="notes"]').click()
    wait.until(lambda d: rows(d) == ["1", "2", "3"])
    wait.until(lambda d: d.find_element(By.ID, "status").text == "Live")
