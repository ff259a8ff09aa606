"""The page in a real browser: Debian's headless Chromium, driven by Selenium, against a real
`mathhammer serve` on a loopback port. A player enters a question; the headline numbers must be
the API's answer, the chart must be drawn, and the shared link must reopen the same answer."""

from __future__ import annotations

import json
import shutil
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from mathhammer_exact.present.report import percent

from .webserver import running_server

webdriver = pytest.importorskip("selenium.webdriver", reason="the browser test needs selenium (the [test] extra)")
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                reason="needs Debian's chromium and chromium-driver (apt-get install chromium "
                                       "chromium-driver; .ci/run installs them)")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1200,900")
PHONE = (390, 844)  # CSS pixels of a common phone


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server() as url:
        yield url


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[object]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def api(url: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(f"{url}{path}", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def wait_for(driver, by: str, what: str):
    """The element once the page has made it (the page builds some controls after loading)."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 30).until(lambda d: d.find_elements(by, what) and d.find_element(by, what))


def wait_for_answer(driver) -> dict[str, str]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "answer").is_displayed()
                                    or d.find_element(By.ID, "error").is_displayed())
    assert not driver.find_element(By.ID, "error").is_displayed(), driver.find_element(By.ID, "error").text
    return {key: driver.find_element(By.ID, key) for key in ("mean-damage", "mean-kills", "p-destroyed")}


def check_headline(driver, answer: dict) -> dict[str, str]:
    """The three headline numbers: the API's values (to 1e-12) shown as the CLI shows them."""
    shown = wait_for_answer(driver)
    expected = {"mean-damage": answer["damage"]["mean"], "mean-kills": answer["models_destroyed"]["mean"],
                "p-destroyed": answer["p_destroyed"]}
    for key, value in expected.items():
        assert float(shown[key].get_attribute("data-value")) == pytest.approx(value, rel=1e-12, abs=1e-15)
    assert shown["mean-damage"].text == f"{answer['damage']['mean']:.3f}"
    assert shown["mean-kills"].text == f"{answer['models_destroyed']['mean']:.3f}"
    assert shown["p-destroyed"].text == percent(answer["p_destroyed"])
    return {key: element.text for key, element in shown.items()}


def check_chart(driver, answer: dict) -> None:
    """One bar per k = 1..n, each as long as P(at least k models destroyed)."""
    from selenium.webdriver.common.by import By

    pmf = answer["models_destroyed"]["pmf"]
    bars = driver.find_elements(By.CSS_SELECTOR, "#chart rect.bar")
    assert [int(b.get_attribute("data-k")) for b in bars] == list(range(1, len(pmf)))
    for bar in bars:
        k = int(bar.get_attribute("data-k"))
        assert float(bar.get_attribute("data-p")) == pytest.approx(sum(pmf[k:]), abs=1e-12)
    assert bars[0].size["width"] > 0  # drawn, not just present


def screenshot(driver, path: Path, width: int) -> None:
    """The whole page at `width` CSS pixels."""
    driver.set_window_size(width, 900)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, height)
    driver.execute_script("window.scrollTo(0, 0)")
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000


def test_weapons_question_shared_and_reopened(server, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{server}/")
    wait_for(browser, By.ID, "w1").send_keys("A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]")
    models = browser.find_element(By.ID, "m1")
    models.clear()
    models.send_keys("20")
    browser.find_element(By.ID, "add-weapon").click()
    browser.find_element(By.ID, "w2").send_keys("A1 BS4+ S9 AP-3 D=3")
    browser.find_element(By.ID, "situation").click()  # open the Situation controls
    browser.find_element(By.NAME, "cover").click()
    target = browser.find_element(By.ID, "target")
    target.send_keys("T4 Sv4+ W3 x5")
    target.send_keys(Keys.ENTER)  # the keyboard submits the form

    body = {"weapons": [{"weapon": "A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]", "models": 20},
                        {"weapon": "A1 BS4+ S9 AP-3 D=3", "models": 1}],
            "target": "T4 Sv4+ W3 x5", "situation": {"cover": True}}
    answer = api(server, "/api/attack", body)
    first = check_headline(browser, answer)
    check_chart(browser, answer)
    screenshot(browser, tmp_path / "web-desktop.png", 1200)

    unlabelled = browser.execute_script(
        "return [...document.querySelectorAll('input, select')].filter(e => !e.labels.length).map(e => e.name)")
    assert unlabelled == []  # every control has a label a screen reader reads out

    shared = browser.find_element(By.ID, "share").get_attribute("href")
    assert browser.current_url == shared
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(shared).query)
    assert query["w"] == [w["weapon"] for w in body["weapons"]] and query["m"] == ["20", "1"]
    assert query["target"] == ["T4 Sv4+ W3 x5"] and query["cover"] == ["1"]

    browser.get("about:blank")
    browser.get(shared)  # a fresh page from the link alone
    assert check_headline(browser, answer) == first
    check_chart(browser, answer)
    assert browser.find_element(By.ID, "w2").get_attribute("value") == "A1 BS4+ S9 AP-3 D=3"
    assert browser.find_element(By.NAME, "cover").is_selected()
    screenshot(browser, tmp_path / "web-phone.png", PHONE[0])
    assert browser.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]  # no sideways scroll
    browser.set_window_size(*PHONE)  # what a phone shows of the answer: headline numbers and chart at once
    browser.execute_script("document.getElementById('answer').scrollIntoView()")
    assert browser.find_element(By.ID, "chart").location["y"] < browser.execute_script("return scrollY") + PHONE[1]
    assert browser.save_screenshot(str(tmp_path / "web-phone-answer.png"))


def test_unit_by_name_from_a_link(server, browser, tmp_path):
    from selenium.webdriver.common.by import By

    query = {"mode": "unit", "attacker": "Tempestus Command Squad", "loadout": "plasma gun, meltagun",
             "with": "take-aim", "target": "Incursor Squad", "half_range": "1", "critical_wound": "5",
             "reroll_damage": "ones", "exact": "1"}
    browser.get(f"{server}/?{urllib.parse.urlencode(query)}")
    body = {"attacker": "Tempestus Command Squad", "loadout": ["plasma gun", "meltagun"], "with": ["take-aim"],
            "target": "Incursor Squad",
            "situation": {"half_range": True, "critical_wound": 5, "reroll_damage": "ones"}}
    check_headline(browser, api(server, "/api/unit", body))
    assert wait_for(browser, By.CSS_SELECTOR, "input[name=with][value=take-aim]").is_selected()
    assert browser.find_element(By.ID, "critical_wound").get_attribute("value") == "5"
    # exact mode: the table shows P(=0) as a fraction too, the same one the API gives
    exact = api(server, "/api/unit", {**body, "exact": True})
    first_row = browser.find_element(By.CSS_SELECTOR, "#tables details[open] tbody tr td")
    assert f"({exact['models_destroyed']['pmf'][0]})" in first_row.text or len(exact["models_destroyed"]["pmf"][0]) > 24
    screenshot(browser, tmp_path / "web-unit.png", 1000)


def test_bad_input_shows_the_cli_message(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{server}/?w=A1+BS7%2B+S4+AP0+D1&m=1&target=MEQ")
    error = browser.find_element(By.ID, "error")
    WebDriverWait(browser, 30).until(lambda d: error.is_displayed())
    assert error.text == "error: BS/WS must be 2+ to 6+, got 7+"
    assert not browser.find_element(By.ID, "answer").is_displayed()
