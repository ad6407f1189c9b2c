"""The page in public/ in a real browser: headless Chromium driven by Selenium (chromium-driver)."""
import shutil
import time

import pytest

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from livestate import Server  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def make_driver(width=1280, height=1000, phone=False):
    options = webdriver.ChromeOptions()
    if phone:
        # A phone's viewport (headless windows cannot be narrower than 500 px).
        options.add_experimental_option(
            "mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2, "touch": True}})
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--hide-scrollbars", "--force-color-profile=srgb"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.fixture(scope="module")
def page_server():
    with Server("--heartbeat", "15") as running:
        yield running


@pytest.fixture(scope="module")
def browsers(page_server):
    drivers = [make_driver(), make_driver()]
    try:
        for driver in drivers:
            open_page(driver, page_server)
        yield drivers
    finally:
        for driver in drivers:
            driver.quit()


def open_page(driver, server):
    driver.get(server.base + "/")
    wait(driver, 10).until(lambda d: d.find_element(By.ID, "conn-state").get_attribute("data-state") == "live")
    wait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#album-grid .album-thumb img"))


def wait(driver, seconds):
    return WebDriverWait(driver, seconds, poll_frequency=0.02)


def click(driver, element):
    """Scrolls the element to the middle of the window (clear of the sticky bar), then clicks it."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def todo_titles(driver):
    return [label.text for label in driver.find_elements(By.CSS_SELECTOR, "#todo-list .todo-item label")]


def add_todo(driver, title):
    field = driver.find_element(By.ID, "todo-input")
    field.clear()
    field.send_keys(title)
    click(driver, driver.find_element(By.ID, "todo-add"))


def save_full_page(driver, path, phone=False):
    """A screenshot of the whole page once its images are in (lazy ones included)."""
    driver.execute_script("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    wait(driver, 10).until(lambda d: d.execute_script("return [...document.images].every(i => i.complete)"))
    width = driver.execute_script("return window.innerWidth")
    height = min(driver.execute_script("return document.documentElement.scrollHeight"), 4000)
    if phone:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    else:
        driver.set_window_size(width, height + 100)
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(path))
    if not phone:
        driver.set_window_size(1280, 1000)


def severe_console_messages(driver):
    """Errors in the console; Chrome also logs each non-2xx answer, so the 422 that the too-short title
    test asks for is expected (any other failed load, such as a missing image, is not)."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
            and not (entry.get("source") == "network" and "/todos - " in entry["message"]
                     and "status of 422" in entry["message"])]


def test_page_shows_the_live_state(browsers):
    driver = browsers[0]
    assert driver.find_element(By.ID, "conn-state").text == "Live"
    wait(driver, 5).until(lambda d: "Buy Milk" in todo_titles(d))
    assert len(driver.find_elements(By.CSS_SELECTOR, "#post-list .post")) == 100
    assert len(driver.find_elements(By.CSS_SELECTOR, "#framework-grid .framework")) >= 12
    assert driver.find_element(By.ID, "album-page").text.startswith("Page 1 of")


def test_a_todo_added_in_one_page_appears_in_the_other_within_a_second(browsers):
    first, second = browsers
    title = f"Call the plumber {time.monotonic_ns() % 100000}"
    add_todo(first, title)
    clicked = time.monotonic()
    wait(second, 1.0).until(lambda d: title in todo_titles(d))
    assert time.monotonic() - clicked <= 1.0
    wait(first, 1.0).until(lambda d: title in todo_titles(d))
    assert first.find_element(By.ID, "todo-input").get_attribute("value") == ""


def test_toggle_and_delete_reach_the_other_page(browsers):
    first, second = browsers
    title = f"Toggle me {time.monotonic_ns() % 100000}"
    add_todo(first, title)
    wait(second, 2).until(lambda d: title in todo_titles(d))

    def item(driver):
        return next(li for li in driver.find_elements(By.CSS_SELECTOR, "#todo-list .todo-item")
                    if li.find_element(By.TAG_NAME, "label").text == title)

    click(first, item(first).find_element(By.CSS_SELECTOR, "input[type=checkbox]"))
    wait(second, 2).until(lambda d: "done" in item(d).get_attribute("class"))
    assert item(second).find_element(By.CSS_SELECTOR, "input[type=checkbox]").is_selected()
    row = item(first)
    first.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
    # The delete button shows on hover, as for a person with a mouse.
    ActionChains(first).move_to_element(row).click(row.find_element(By.CSS_SELECTOR, ".delete")).perform()
    wait(second, 2).until(lambda d: title not in todo_titles(d))


def test_a_too_short_title_shows_the_servers_message(browsers, page_server):
    driver = browsers[0]
    status, _, body = page_server.call("POST", "/todos", {"title": "abc"})
    assert status == 422
    add_todo(driver, "abc")
    wait(driver, 3).until(lambda d: d.find_element(By.ID, "todo-error").text != "")
    assert driver.find_element(By.ID, "todo-error").text == body["message"]
    assert "abc" not in todo_titles(driver)


def test_selecting_an_album_shows_its_image_in_every_page(browsers):
    first, second = browsers
    thumb = first.find_elements(By.CSS_SELECTOR, "#album-grid .album-thumb")[2]
    click(first, thumb)
    for driver in (first, second):
        wait(driver, 10).until(lambda d: d.execute_script(
            "const i = document.getElementById('album-image');"
            "return !i.hidden && i.complete && i.naturalWidth > 0;"))
    assert thumb.get_attribute("aria-pressed") == "true"
    assert "image/" in first.find_element(By.ID, "album-caption").text


def test_album_paging_loads_the_next_page(browsers):
    driver = browsers[1]
    first_ids = [t.get_attribute("data-id") for t in driver.find_elements(By.CSS_SELECTOR, ".album-thumb")]
    click(driver, driver.find_element(By.ID, "album-next"))
    wait(driver, 5).until(lambda d: d.find_element(By.ID, "album-page").text.startswith("Page 2 of"))
    second_ids = [t.get_attribute("data-id") for t in driver.find_elements(By.CSS_SELECTOR, ".album-thumb")]
    assert second_ids and not set(first_ids) & set(second_ids)
    click(driver, driver.find_element(By.ID, "album-prev"))
    wait(driver, 5).until(lambda d: d.find_element(By.ID, "album-page").text.startswith("Page 1 of"))


def test_the_framework_detail_opens_with_a_learn_more_link(browsers, page_server):
    driver = browsers[0]
    _, _, frameworks = page_server.call("GET", "/frameworks")
    chosen = frameworks[1]
    button = next(b for b in driver.find_elements(By.CSS_SELECTOR, "#framework-grid .framework")
                  if b.get_attribute("data-name") == chosen["name"])
    click(driver, button)
    wait(driver, 3).until(EC.visibility_of_element_located((By.ID, "framework-detail")))
    wait(driver, 3).until(lambda d: d.find_element(By.ID, "framework-detail-name").text == chosen["name"])
    link = driver.find_element(By.ID, "framework-detail-link")
    assert link.text == "Learn more"
    assert link.get_attribute("href") == chosen["urlString"]
    assert driver.find_element(By.ID, "framework-detail-description").text == chosen["description"]


def test_typing_a_movie_keyword_shows_results_after_the_debounce(browsers):
    driver = browsers[0]
    field = driver.find_element(By.ID, "movie-search")
    field.clear()
    field.send_keys("the")
    wait(driver, 5).until(lambda d: "for “the”" in d.find_element(By.ID, "movie-status").text)
    assert driver.find_elements(By.CSS_SELECTOR, "#movie-results .movie")


def test_no_console_errors_and_a_screenshot(browsers, artifacts, page_server):
    driver = browsers[0]
    errors = severe_console_messages(driver)
    assert errors == [], errors
    save_full_page(driver, artifacts / "page.png")
    phone = make_driver(390, 844, phone=True)
    try:
        open_page(phone, page_server)
        assert phone.execute_script("return window.innerWidth") == 390
        width = phone.execute_script("return document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
        save_full_page(phone, artifacts / "page-phone.png", phone=True)
        assert severe_console_messages(phone) == []
    finally:
        phone.quit()


def test_the_page_shows_when_the_server_goes_away(fresh_server):
    server = fresh_server("--heartbeat", "15")
    driver = make_driver()
    try:
        open_page(driver, server)
        server.stop()
        wait(driver, 5).until(
            lambda d: d.find_element(By.ID, "conn-state").get_attribute("data-state") in ("reconnecting", "offline"))
    finally:
        driver.quit()


def test_with_a_token_the_settings_field_makes_changes_work(fresh_server):
    server = fresh_server("--heartbeat", "15", "--token", "s3cret")
    driver = make_driver()
    try:
        open_page(driver, server)
        title = f"Needs a token {time.monotonic_ns() % 100000}"
        add_todo(driver, title)
        wait(driver, 3).until(lambda d: "Bearer" in d.find_element(By.ID, "todo-error").text)
        assert driver.find_element(By.CSS_SELECTOR, "details.settings").get_attribute("open") is not None
        field = driver.find_element(By.ID, "token-input")
        field.send_keys("s3cret")
        click(driver, driver.find_element(By.CSS_SELECTOR, "#settings-form button[type=submit]"))
        assert driver.execute_script("return localStorage.getItem('livestate.token')") == "s3cret"
        click(driver, driver.find_element(By.ID, "todo-add"))
        wait(driver, 3).until(lambda d: title in todo_titles(d))
    finally:
        driver.quit()
