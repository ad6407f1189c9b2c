"""Headless Chromium for the page tests (Selenium): the driver's path is given and Selenium is told to stay
offline and send no statistics, so a test never downloads a driver nor reports to anyone."""
import os
import shutil

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def chrome(options: webdriver.ChromeOptions) -> webdriver.Chrome:
    """A Chromium driven through the installed chromedriver, with `options` (their binary set here)."""
    os.environ["SE_OFFLINE"] = "true"
    os.environ["SE_AVOID_STATS"] = "true"
    options.binary_location = CHROMIUM
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
