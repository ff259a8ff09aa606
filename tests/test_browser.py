"""The page in a real browser: Debian's headless Chromium, driven by Selenium, against a real
`mathhammer serve` on a loopback port. For every kind of question the headline numbers must be the
API's answer, the URL must hold the whole question (asking again from the form gives the same URL),
the charts must fold every row below 0.01%, and on a phone the headline must show without scrolling.
One browser serves the whole module, so the tests stay within a minute or so.

With MATHHAMMER_SCREENSHOTS=1 the phone and laptop screenshots of docs/server.md are retaken into
docs/images/."""

from __future__ import annotations

import base64
import json
import os
import shutil
import urllib.parse
import urllib.request
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from .webserver import running_server

webdriver = pytest.importorskip("selenium.webdriver", reason="the browser test needs selenium (the [test] extra)")
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                reason="needs Debian's chromium and chromium-driver (apt-get install chromium "
                                       "chromium-driver; .ci/run installs them)")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,900")
PHONE = (390, 844)  # CSS pixels of a common phone
LAPTOP = (1280, 800)
ROOT = Path(__file__).resolve().parent.parent
ARMY = ROOT / "tests" / "fixtures" / "army.ros"
SHOWN = 0.0001  # the page folds every row below 0.01%


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server() as url:
        yield url


@pytest.fixture(scope="module")
def chromium(tmp_path_factory) -> Iterator[Any]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('profile')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "SEVERE"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(chromium):
    """The module's browser showing pages at laptop size; no console errors may be left, nor an army list."""
    chromium.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": LAPTOP[0], "height": LAPTOP[1],
                                                                    "deviceScaleFactor": 1, "mobile": False})
    chromium.get("about:blank")
    yield chromium
    chromium.execute_script("try { sessionStorage.clear() } catch (e) {}")
    errors = [entry["message"] for entry in chromium.get_log("browser")]
    assert not [e for e in errors if "status of 422" not in e], errors  # a refused question is not a page error


def api(url: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(f"{url}{path}", json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def value(answer: dict, key: str) -> Any:
    """`answer` at a dotted path such as 'rows.0.damage'."""
    for part in key.split("."):
        answer = answer[int(part)] if isinstance(answer, list) else answer[part]
    return answer


def number(x: Any) -> float:
    return float(Fraction(x)) if isinstance(x, str) else float(x)


def percent(p: Any) -> str:
    """A chance as the page shows it: two decimals, a tiny non-zero one not shown as 0."""
    x = number(p)
    return "< 0.01%" if 0 < x < 0.00005 else f"{x * 100:.2f}%"


def wait(driver, condition, seconds: float = 30):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(condition)


def wait_for_answer(driver) -> None:
    from selenium.webdriver.common.by import By

    wait(driver, lambda d: d.find_element(By.ID, "answer").is_displayed()
         or d.find_element(By.ID, "error").is_displayed())
    assert not driver.find_element(By.ID, "error").is_displayed(), driver.find_element(By.ID, "error").text


def check_headline(driver, answer: dict) -> list[str]:
    """Every headline number is the API's (to 1e-12), shown with two decimals (a chance as a percentage)."""
    from selenium.webdriver.common.by import By

    wait_for_answer(driver)
    shown = driver.find_elements(By.CSS_SELECTOR, "#headline dd")
    assert shown
    for element in shown:
        key, text = element.get_attribute("data-key"), element.text
        expected = value(answer, key)
        assert float(element.get_attribute("data-value")) == pytest.approx(number(expected), rel=1e-12, abs=1e-15), key
        if key.split(".")[-1].startswith("p_") or key in ("rows.0.value",) and answer.get("goal") == "destroy":
            assert text == percent(expected), key
        elif key not in ("need.models", "need.largest"):  # a number of models, as it is
            assert text == f"{number(expected):.2f}", key
    if "title" in answer:  # the page's text, its spaces collapsed
        assert driver.find_element(By.ID, "answer-title").text == " ".join(answer["title"].split())
    return [element.text for element in shown]


def check_charts(driver, answer: dict | None = None) -> None:
    """No chart row below 0.01%: each row drawn has a bar of 0.01% or more, and the rows left out are counted in
    the line under the chart. For an attack's `answer`, the first chart's bars are P(at least k models destroyed)
    and the damage chart leaves out exactly the values below 0.01%."""
    from selenium.webdriver.common.by import By

    bars = driver.find_elements(By.CSS_SELECTOR, "svg.bars rect.bar")
    assert bars and bars[0].size["width"] > 0  # drawn, not just present
    for chart in driver.find_elements(By.CSS_SELECTOR, "figure.chart"):
        rows: dict[str, list[float]] = {}
        for bar in chart.find_elements(By.CSS_SELECTOR, "rect.bar"):
            rows.setdefault(bar.get_attribute("data-k"), []).append(float(bar.get_attribute("data-p")))
        for k, ps in rows.items():
            assert max(ps) >= SHOWN, (k, ps)  # a row is drawn only for a chance of 0.01% or more
        folded = int(chart.get_attribute("data-folded"))
        assert bool(folded) == bool(chart.find_elements(By.CSS_SELECTOR, ".folded"))
    if answer is None or "models_destroyed" not in answer:
        return
    tail, damage = answer["models_destroyed"]["pmf"], answer["damage"]["pmf"]
    first = driver.find_element(By.CSS_SELECTOR, "figure.chart[data-kind=tail]")
    for bar in first.find_elements(By.CSS_SELECTOR, "rect.bar"):
        k = int(bar.get_attribute("data-k"))
        assert float(bar.get_attribute("data-p")) == pytest.approx(sum(number(p) for p in tail[k:]), abs=1e-12)
    chart = driver.find_element(By.CSS_SELECTOR, "figure.chart[data-kind=pmf]")
    assert int(chart.get_attribute("data-folded")) == sum(0 < number(p) < SHOWN for p in damage)  # none of chance 0
    drawn = sorted({int(bar.get_attribute("data-k")) for bar in chart.find_elements(By.CSS_SELECTOR, "rect.bar")})
    assert drawn == [k for k, p in enumerate(damage) if number(p) >= SHOWN]


def query(url: str) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query, keep_blank_values=True)


def asked_again(driver, asked: str) -> None:
    """The form, filled from the link, asks the same question: submitting it gives the same URL's question."""
    from selenium.webdriver.common.by import By

    share = driver.find_element(By.ID, "share").get_attribute("href")
    assert query(share) == query(asked)
    driver.execute_script("document.getElementById('question').requestSubmit()")
    wait(driver, lambda d: d.find_element(By.ID, "share").get_attribute("href") != "" and
         d.find_element(By.ID, "answer").is_displayed())
    assert query(driver.current_url) == query(asked), driver.current_url


def open_link(driver, server: str, params: list[tuple[str, str]]) -> str:
    link = f"{server}/?{urllib.parse.urlencode(params)}"
    driver.get(link)
    return link


# --------------------------------------------------------------------- every kind of question from its link
WEAPONS = [("w", "A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]"), ("m", "20"), ("w", "A1 BS4+ S9 AP-3 D=3"), ("m", "1"),
           ("target", "T4 Sv4+ W3 x10"), ("cover", "1")]
WEAPONS_BODY = {"weapons": [{"weapon": "A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]", "models": 20},
                            {"weapon": "A1 BS4+ S9 AP-3 D=3", "models": 1}],
                "target": "T4 Sv4+ W3 x10", "situation": {"cover": True}}
SCENARIO_1 = urllib.parse.urlencode([("w", "A1 BS3+ S4 AP-1 D1"), ("m", "10"), ("target", "MEQ")])
SCENARIO_2 = urllib.parse.urlencode([("mode", "unit"), ("attacker", "Incursor Squad"), ("target", "MEQ"),
                                     ("half_range", "1"), ("label", "Incursors close")])
QUESTIONS = {
    "unit": ([("q", "unit"), ("attacker", "Tempestus Command Squad"), ("loadout", "plasma gun, meltagun"),
              ("with", "take-aim"), ("target", "Incursor Squad"), ("half_range", "1"), ("critical_wound", "5")],
             "/api/unit", {"attacker": "Tempestus Command Squad", "loadout": ["plasma gun", "meltagun"],
                           "with": ["take-aim"], "target": "Incursor Squad",
                           "situation": {"half_range": True, "critical_wound": 5}}),
    # a rule named as an answer names it (not a box's key): kept when the form asks again (a trial found it dropped)
    "unit-rule-by-name": ([("q", "unit"), ("attacker", "Incursor Squad"), ("target", "MEQ"),
                           ("with", "Oath of Moment")],
                          "/api/unit", {"attacker": "Incursor Squad", "target": "MEQ", "with": ["Oath of Moment"]}),
    "unit-two-leaders": ([("q", "unit"), ("attacker", "Incursor Squad"), ("target", "Tempestus Command Squad"),
                          ("leader", "T4 Sv3+ W4 + T4 Sv3+ inv4+ W5")],  # two Leaders, written 'A + B'
                         "/api/unit", {"attacker": "Incursor Squad", "target": "Tempestus Command Squad",
                                       "leader": ["T4 Sv3+ W4", "T4 Sv3+ inv4+ W5"]}),
    "compare": ([("q", "compare"), ("s", SCENARIO_1), ("s", SCENARIO_2)],
                "/api/compare", {"scenarios": [
                    {"attack": {"weapons": [{"weapon": "A1 BS3+ S4 AP-1 D1", "models": 10}], "target": "MEQ"}},
                    {"label": "Incursors close", "unit": {"attacker": "Incursor Squad", "target": "MEQ",
                                                          "situation": {"half_range": True}}}]}),
    "need-weapons": ([("q", "need"), ("w", "A1 BS3+ S4 AP-1 D1"), ("m", ""), ("target", "MEQ"), ("need", "50%"),
                      ("at_least", "2")],
                     "/api/attack/need", {"weapons": [{"weapon": "A1 BS3+ S4 AP-1 D1"}], "target": "MEQ",
                                          "need": "50%", "at_least": 2}),
    "need-unit": ([("q", "need"), ("mode", "unit"), ("attacker", "Incursor Squad"), ("target", "MEQ"),
                   ("need", "60%"), ("at_least", "1")],
                  "/api/unit/need", {"attacker": "Incursor Squad", "target": "MEQ", "need": "60%", "at_least": 1}),
    # a chance no size reaches: the answer at the largest size, said so (a trial found it refused)
    "need-unit-beyond": ([("q", "need"), ("mode", "unit"), ("attacker", "Incursor Squad"), ("target", "MEQ"),
                          ("need", "99.9999%"), ("at_least", "1")],
                         "/api/unit/need", {"attacker": "Incursor Squad", "target": "MEQ", "need": "99.9999%",
                                            "at_least": 1}),
    "plan": ([("q", "plan"), ("w", "A2 BS3+ S4 AP-1 D1"), ("m", "5"), ("wk", "weapon"), ("w", "Incursor Squad"),
              ("m", ""), ("wk", "unit"), ("target", "MEQ"), ("goal", "kills")],
             "/api/plan", {"weapons": [{"weapon": "A2 BS3+ S4 AP-1 D1", "models": 5}, {"unit": "Incursor Squad"}],
                           "targets": ["MEQ"], "goal": "kills"}),
    "turn": ([("q", "turn"), ("target", "MEQ"), ("s", "A2 BS3+ S4 AP-1 D1"), ("sm", "5"), ("sk", "weapon"),
              ("f", "Incursor Squad"), ("fm", ""), ("fk", "unit"), ("distance", "7"), ("charge_reroll", "1"),
              ("o", "A1 BS6+ S4 AP0 D1"), ("om", ""), ("charger", "T4 Sv3+ W2")],
             "/api/turn", {"target": "MEQ", "shoot": [{"weapon": "A2 BS3+ S4 AP-1 D1", "models": 5}],
                           "fight": [{"unit": "Incursor Squad"}], "distance": 7, "charge_reroll": True,
                           "overwatch": [{"weapon": "A1 BS6+ S4 AP0 D1"}], "charger": "T4 Sv3+ W2"}),
    "survive": ([("q", "survive"), ("target", "Incursor Squad"), ("at_least", "2")],
                "/api/survive", {"unit": "Incursor Squad", "at_least": 2}),
    "turn-with": ([("q", "turn"), ("target", "Incursor Squad x3/5"), ("s", "Tempestus Command Squad"), ("sm", ""),
                   ("sk", "unit"), ("f", "Tempestus Command Squad"), ("fm", ""), ("fk", "unit"), ("distance", "8"),
                   ("with", "take-aim")],
                  "/api/turn", {"target": "Incursor Squad x3/5", "shoot": [{"unit": "Tempestus Command Squad"}],
                                "fight": [{"unit": "Tempestus Command Squad"}], "distance": 8, "with": ["take-aim"]}),
    "charge": ([("q", "roll"), ("distance", "9"), ("reroll", "1")],
               "/api/roll/charge", {"distance": 9, "reroll": True}),
    "advance": ([("q", "roll"), ("roll", "advance")], "/api/roll/advance", {}),
    "battle-shock": ([("q", "roll"), ("roll", "battle-shock"), ("ld", "6")], "/api/roll/battle-shock", {"ld": 6}),
    "desperate-escape": ([("q", "roll"), ("roll", "desperate-escape"), ("tests", "4")],
                         "/api/roll/desperate-escape", {"tests": 4}),
    "hazardous": ([("q", "roll"), ("roll", "hazardous"), ("weapons", "3"), ("bearer", "T4 Sv3+ W2")],
                  "/api/roll/hazardous", {"weapons": 3, "bearer": "T4 Sv3+ W2"}),
    "grenade": ([("q", "roll"), ("roll", "grenade"), ("target", "T3 Sv5+ W1 x5")],
                "/api/roll/grenade", {"target": "T3 Sv5+ W1 x5"}),
}


@pytest.mark.parametrize("kind", list(QUESTIONS))
def test_every_question_opens_from_its_link_on_the_apis_answer(server, browser, kind):
    params, path, body = QUESTIONS[kind]
    link = open_link(browser, server, params)
    answer = api(server, path, body)
    check_headline(browser, answer)
    check_charts(browser, answer)
    if kind == "survive":  # the attacker most likely to destroy the unit (a trial found the first one's numbers)
        from selenium.webdriver.common.by import By

        worst = max(range(len(answer["rows"])), key=lambda i: (answer["rows"][i]["p_destroyed"],
                                                                answer["rows"][i]["kills"]))
        keys = [e.get_attribute("data-key") for e in browser.find_elements(By.CSS_SELECTOR, "#headline dd")]
        assert keys[-1] == f"rows.{worst}.p_destroyed" and worst != 0
    if kind.startswith("need-unit"):  # the number of models, or the largest size where none reaches the chance
        from selenium.webdriver.common.by import By

        keys = [e.get_attribute("data-key") for e in browser.find_elements(By.CSS_SELECTOR, "#headline dd")]
        assert keys[0] == ("need.largest" if answer["need"]["models"] is None else "need.models")
    asked_again(browser, link)


def test_a_rule_the_answer_did_not_apply_is_applied_from_its_button(server, browser):
    # a trial found answers saying '"with" 'X' assumes it' where the page had no way to ask for X
    from selenium.webdriver.common.by import By

    open_link(browser, server, [("q", "unit"), ("attacker", "Incursor Squad"), ("target", "MEQ")])
    wait_for_answer(browser)
    buttons = {b.get_attribute("data-rule"): b for b in browser.find_elements(By.CSS_SELECTOR, "#apply button")}
    assert set(buttons) == {"Oath of Moment", "oath-of-moment-2023"}
    buttons["Oath of Moment"].click()
    wait(browser, lambda d: "with=" in d.current_url and d.find_element(By.ID, "answer").is_displayed()
         and not d.find_elements(By.CSS_SELECTOR, "#apply button[data-rule='Oath of Moment']"))  # asked again
    check_headline(browser, api(server, "/api/unit", {"attacker": "Incursor Squad", "target": "MEQ",
                                                      "with": ["oath-of-moment"]}))


def test_compared_unit_scenarios_say_what_differs_and_what_they_cost(server, browser):
    # a trial found standard and supercharged plasma compared under one title each, the supercharge's Hazardous
    # losses shown nowhere (the API gave them)
    from selenium.webdriver.common.by import By

    base = [("mode", "unit"), ("attacker", "Militarum Tempestus Command Squad"), ("loadout", "plasma gun"),
            ("target", "MEQ")]
    open_link(browser, server, [("q", "compare"), ("s", urllib.parse.urlencode(base)),
                                ("s", urllib.parse.urlencode([*base, ("profiles", "supercharge")]))])
    wait_for_answer(browser)
    heads = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#grid thead th")]
    assert heads[-2:] == ["own models lost (Hazardous)", "kills per 100 points"]  # (the target's points unknown)
    rows = [[td.text for td in tr.find_elements(By.CSS_SELECTOR, "th, td")]
            for tr in browser.find_elements(By.CSS_SELECTOR, "#grid tbody tr")]
    assert rows[0][1].endswith("(loadout: plasma gun)") and rows[0][-2] == "-"
    assert rows[1][1].endswith("(loadout: plasma gun; profiles: supercharge)") and rows[1][-2] == "0.17"  # 1/6


def test_a_compare_is_built_in_the_form_scenario_by_scenario(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/?q=compare")
    wait(browser, lambda d: d.find_element(By.ID, "weapons-1").is_displayed())
    browser.find_element(By.ID, "weapons-1").send_keys("A2 BS3+ S4 AP-1 D1")
    browser.find_element(By.ID, "target").send_keys("MEQ")
    browser.find_element(By.ID, "add-scenario").click()
    browser.find_element(By.ID, "situation").click()
    browser.find_element(By.NAME, "cover").click()
    browser.find_element(By.ID, "add-scenario").click()
    browser.find_element(By.ID, "label-2").send_keys("in cover")
    browser.find_element(By.ID, "compare_at_least").send_keys("2")  # leaves the label field: its change is kept
    browser.find_element(By.ID, "ask").click()
    one = {"weapons": [{"weapon": "A2 BS3+ S4 AP-1 D1", "models": 1}], "target": "MEQ"}
    answer = api(server, "/api/compare", {"scenarios": [{"attack": one}, {"label": "in cover", "attack": {
        **one, "situation": {"cover": True}}}], "at_least": 2})
    check_headline(browser, answer)
    grid = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#grid tbody tr")]
    assert len(grid) == 2 and "in cover" in grid[1] and percent(answer["rows"][1]["p_at_least"]) in grid[1]
    series = {bar.get_attribute("data-series") for bar in browser.find_elements(By.CSS_SELECTOR, "rect.bar")}
    assert series == {"1", "2"}  # the scenarios overlaid in one chart
    check_charts(browser)
    asked_again(browser, browser.current_url)


# --------------------------------------------------------------------- a player's flow
def test_weapons_typed_in_the_form_then_shared_and_opened_on_a_phone(server, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{server}/")
    wait(browser, lambda d: d.find_element(By.ID, "weapons-1").is_displayed())
    browser.find_element(By.ID, "weapons-1").send_keys("A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]")
    models = browser.find_element(By.ID, "weapons-1m")
    models.clear()
    models.send_keys("20")
    browser.find_element(By.CSS_SELECTOR, "[data-list=weapons]").click()
    browser.find_element(By.ID, "weapons-2").send_keys("A1 BS4+ S9 AP-3 D=3")
    assert browser.find_element(By.ID, "weapons-2m").get_attribute("value") == "1"  # one model, unless changed
    browser.find_element(By.ID, "situation").click()  # open the Situation controls
    browser.find_element(By.NAME, "cover").click()
    target = browser.find_element(By.ID, "target")
    target.send_keys("T4 Sv4+ W3 x10")
    target.send_keys(Keys.ENTER)  # the keyboard submits the form

    answer = api(server, "/api/attack", WEAPONS_BODY)
    first = check_headline(browser, answer)
    check_charts(browser, answer)
    unlabelled = browser.execute_script(
        "return [...document.querySelectorAll('input, select')].filter(e => e.type !== 'hidden' && !e.labels.length)"
        ".map(e => e.name || e.id)")
    assert unlabelled == []  # every control has a label a screen reader reads out
    header = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#header li")]
    assert header == answer["header"]  # the command's header lines: each weapon, the target, the situation
    shared = browser.find_element(By.ID, "share").get_attribute("href")
    assert browser.current_url == shared and query(shared) == query(f"?q=attack&{urllib.parse.urlencode(WEAPONS)}")
    screenshot(browser, "web-laptop.png", tmp_path)

    phone(browser)
    browser.get("about:blank")
    browser.get(shared)  # a fresh page from the link alone, on a phone
    assert check_headline(browser, answer) == first
    check_charts(browser, answer)
    assert browser.find_element(By.ID, "weapons-2").get_attribute("value") == "A1 BS4+ S9 AP-3 D=3"
    assert browser.find_element(By.NAME, "cover").is_selected()
    # answer first: the headline in the first screen, without scrolling, and no sideways scroll
    box = browser.execute_script("const r = document.getElementById('headline').getBoundingClientRect();"
                                 "return [r.top, r.bottom, innerHeight, scrollY, document.documentElement.scrollWidth]")
    top, bottom, height, scrolled, wide = box
    assert scrolled == 0 and 0 <= top and bottom <= height == PHONE[1], box
    assert browser.find_element(By.ID, "fired").location["y"] < height or not answer.get("firings")
    assert wide <= PHONE[0]
    assert not browser.find_element(By.ID, "ask-box").get_attribute("open")  # the form folded above the answer
    rare = sum(0 < number(p) < SHOWN for p in answer["damage"]["pmf"])
    folded = browser.find_element(By.CSS_SELECTOR, "figure.chart[data-kind=pmf] .folded").text
    assert rare and folded.startswith(f"({rare} other values: each below 0.01%")  # the rare values in one line
    screenshot(browser, "web-phone.png", tmp_path)


def phone(driver) -> None:
    """The window's page as a phone shows it: PHONE CSS pixels, a mobile viewport."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": PHONE[0], "height": PHONE[1],
                                                                  "deviceScaleFactor": 1, "mobile": True})


def screenshot(driver, name: str, folder: Path, at: str | None = None) -> None:
    """What the window shows from the top (or from the element matching the CSS selector `at`); with
    MATHHAMMER_SCREENSHOTS=1 into docs/images/ for docs/server.md."""
    path = (ROOT / "docs" / "images" if os.environ.get("MATHHAMMER_SCREENSHOTS") else folder) / name
    driver.execute_script("const at = arguments[0] && document.querySelector(arguments[0]);"
                          "if (at) at.scrollIntoView(); else window.scrollTo(0, 0)", at)
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000


def test_a_unit_found_by_suggestion_with_its_datasheets_size_and_wargear(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(f"{server}/?q=unit")
    attacker = wait(browser, lambda d: d.find_element(By.ID, "attacker"))
    attacker.send_keys("tempestus")
    suggested = wait(browser, lambda d: [o.get_attribute("value") for o in
                                         d.find_elements(By.CSS_SELECTOR, "#attacker-names option")])
    with urllib.request.urlopen(f"{server}/api/units?q=tempestus&limit=20", timeout=30) as response:
        found = json.load(response)
    assert suggested == [u["name"] for u in found["units"]] and suggested
    name = suggested[0]
    attacker.clear()
    attacker.send_keys(name)
    browser.find_element(By.ID, "target").send_keys("Incursor Squad")  # leaving the field: its datasheet comes
    sheet = api(server, "/api/datasheet", {"name": name, "near": "Incursor Squad"})
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#wargear input")) == len(sheet["choices"]))
    sizes = [o.get_attribute("value") for o in Select(browser.find_element(By.ID, "size")).options]
    assert sizes == ["", *map(str, sheet["sizes"])]
    for choice in ("plasma gun", "meltagun"):
        count = browser.find_element(By.CSS_SELECTOR, f"#wargear input[data-choice='{choice}']")
        count.clear()
        count.send_keys("1")
    browser.find_element(By.ID, "profiles").click()  # the counts are written into the loadout field
    assert browser.find_element(By.ID, "loadout").get_attribute("value") == "meltagun, plasma gun"
    browser.find_element(By.ID, "ask").click()
    answer = api(server, "/api/unit", {"attacker": name, "target": "Incursor Squad",
                                       "loadout": ["meltagun", "plasma gun"]})
    check_headline(browser, answer)
    fired = ", ".join(f"{f['models']} × {f['weapon']}" for f in answer["firings"])
    assert browser.find_element(By.ID, "fired").text == f"What fired: {fired}"
    assert [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#header li")] == answer["header"]


def test_an_army_list_uploaded_gives_its_units_to_the_questions(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/?q=unit")
    browser.find_element(By.ID, "army-box").click()
    browser.find_element(By.ID, "army-file").send_keys(str(ARMY))
    status = wait(browser, lambda d: d.find_element(By.ID, "army-status").text.startswith("Gravel Host test list")
                  and d.find_element(By.ID, "army-status").text)
    assert status == "Gravel Host test list: #1 Gravel Wardens, #2 Warden Captain, #3 Rockbiter"
    browser.find_element(By.ID, "attacker").click()  # its units are suggested
    wait(browser, lambda d: "#1" in [o.get_attribute("value") for o in
                                     d.find_elements(By.CSS_SELECTOR, "#attacker-names option")])
    browser.find_element(By.ID, "attacker").send_keys("#1")
    browser.find_element(By.ID, "target").send_keys("#3")
    browser.find_element(By.ID, "profiles").send_keys("boulder")
    browser.find_element(By.ID, "ask").click()
    sent = base64.b64encode(ARMY.read_bytes()).decode()
    answer = api(server, "/api/unit", {"attacker": "#1", "target": "#3", "profiles": ["boulder"], "army": sent})
    check_headline(browser, answer)
    assert answer["title"] == "Gravel Wardens (Gravel Host)  ->  Rockbiter (Gravel Host)"
    assert query(browser.current_url)["attacker"] == ["#1"]  # the link names the unit; the list stays in the page
    browser.refresh()  # the tab keeps the list: the link reopens the answer
    check_headline(browser, answer)
    browser.execute_script("sessionStorage.clear()")
    browser.refresh()  # without it, the page says what it needs
    error = wait(browser, lambda d: d.find_element(By.ID, "error").is_displayed() and d.find_element(By.ID, "error"))
    assert error.text.startswith("error: this question names units of an army list")


def test_bad_input_shows_the_cli_message(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/?w=A1+BS7%2B+S4+AP0+D1&m=1&target=MEQ")
    error = browser.find_element(By.ID, "error")
    wait(browser, lambda d: error.is_displayed())
    assert error.text == "error: BS/WS must be 2+ to 6+, got 7+"
    assert not browser.find_element(By.ID, "answer").is_displayed()
    assert browser.find_element(By.ID, "ask-box").get_attribute("open")  # the form opens to put it right
    # beside the form, at the top, in sight (a trial found it 2,000 pixels down a unit question's shared link)
    browser.get(f"{server}/?q=unit&attacker=Incursor+Squad&target=MEQ&size=7")
    wait(browser, lambda d: error.is_displayed() if (error := d.find_element(By.ID, "error")) else False)
    top = browser.execute_script("return document.getElementById('error').getBoundingClientRect().top")
    assert 0 <= top < browser.execute_script("return innerHeight")


def test_asking_on_a_phone_folds_the_form_and_shows_the_answer(server, browser):
    # a trial found the answer under the whole form on a phone after 'Work it out' (it folded for a link alone)
    from selenium.webdriver.common.by import By

    phone(browser)
    browser.get(f"{server}/?q=attack")
    wait(browser, lambda d: d.find_element(By.ID, "weapons-1")).send_keys("A2 BS3+ S4 AP-1 D1")
    browser.find_element(By.ID, "target").send_keys("MEQ")
    browser.find_element(By.ID, "ask").click()
    wait(browser, lambda d: d.find_element(By.ID, "answer").is_displayed())
    assert not browser.find_element(By.ID, "ask-box").get_attribute("open")
    top = browser.execute_script("return document.getElementById('answer').getBoundingClientRect().top")
    assert 0 <= top < PHONE[1]


def test_a_survive_grid_fits_a_phone(server, browser):
    # a trial found the survive grid's P(destroyed) column scrolled out of sight at 390 px
    phone(browser)
    open_link(browser, server, [("q", "survive"), ("target", "Incursor Squad")])
    wait_for_answer(browser)
    width, room = browser.execute_script("const box = document.getElementById('grid-box');"
                                         "return [box.scrollWidth, box.clientWidth]")
    assert width <= room


# --------------------------------------------------------------------- a matchup
MATCHUP = [("q", "matchup"), ("a", "Incursor Squad"), ("am", "10"), ("a", "Tempestus Command Squad"), ("am", ""),
           ("b", "Tempestus Command Squad"), ("bm", ""), ("b", "Incursor Squad"), ("bm", ""), ("phase", "both"),
           ("cover", "1")]
MATCHUP_BODY = {"army_a": {"units": ["Incursor Squad x10", "Tempestus Command Squad"]},
                "army_b": {"units": ["Tempestus Command Squad", "Incursor Squad"]}, "phase": "both",
                "situation": {"cover": True}}


def check_heatmaps(driver, answer: dict, figure: str) -> None:
    """One table per army and phase, attackers in rows and targets in columns, each cell the API's figure for its
    pair (to 1e-12), written as the page writes numbers, on a coloured background."""
    from selenium.webdriver.common.by import By

    tables = driver.find_elements(By.CSS_SELECTOR, "figure.heatmap")
    groups = list(dict.fromkeys((row["army"], row["phase"]) for row in answer["rows"]))
    assert [(t.get_attribute("data-army"), t.get_attribute("data-phase")) for t in tables] == groups
    for table, (army, phase) in zip(tables, groups):
        assert table.get_attribute("data-figure") == figure
        rows = [row for row in answer["rows"] if (row["army"], row["phase"]) == (army, phase)]
        targets = list(dict.fromkeys(row["target"] for row in rows))
        heads = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        assert heads == [f"{army} attacks →", *targets]
        assert [th.text for th in table.find_elements(By.CSS_SELECTOR, "tbody th")] == list(
            dict.fromkeys(row["attacker"] for row in rows))
        cells = table.find_elements(By.CSS_SELECTOR, "tbody td")
        assert len(cells) == len(rows)
        for cell, row in zip(cells, rows):
            assert (cell.get_attribute("data-attacker"), cell.get_attribute("data-target")) == (row["attacker"],
                                                                                              row["target"])
            expected = row[figure]
            if expected is None:
                assert cell.text == "–" and cell.get_attribute("title") == row["reason"]
                continue
            assert float(cell.get_attribute("data-value")) == pytest.approx(expected, rel=1e-12)
            assert cell.text == (percent(expected) if figure == "p_destroyed" else f"{expected:.2f}")
            assert cell.value_of_css_property("background-color") not in ("rgba(0, 0, 0, 0)", "transparent")


def test_a_matchup_opens_from_its_link_on_the_apis_answer_as_heatmap_tables(server, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    link = open_link(browser, server, MATCHUP)
    answer = api(server, "/api/matchup", MATCHUP_BODY)
    check_headline(browser, answer)
    best = max((row for row in answer["rows"] if row["army"] == "army A"), key=lambda row: row["mean_models_destroyed"])
    assert browser.find_element(By.CSS_SELECTOR, "#headline dt").text == (
        f"Most models destroyed\n{best['attacker']} → {best['target']}, {best['phase']}")
    assert browser.find_element(By.ID, "answer-title").text == "army A against army B"
    check_heatmaps(browser, answer, "mean_models_destroyed")
    assert [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#header li")] == [
        line.strip() for line in answer["assumptions"]]
    # what the answers said of their units, as the CLI's tables say it, by army and phase (after the reasons)
    said = [f"{group['army']}, {group['phase']} phase: {line}" for group in answer["notes"] for line in group["notes"]]
    shown = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#notes li")]
    assert said and shown[-len(said):] == said
    asked_again(browser, link)
    Select(browser.find_element(By.ID, "figure")).select_by_value("p_destroyed")  # redrawn, in the URL
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "figure.heatmap").get_attribute("data-figure")
         == "p_destroyed")
    check_heatmaps(browser, answer, "p_destroyed")
    assert query(browser.current_url) == query(f"?{urllib.parse.urlencode([*MATCHUP, ('figure', 'p_destroyed')])}")
    asked_again(browser, browser.current_url)

    phone(browser)  # the link alone, on a phone: the answer first, the tables scroll in their own boxes
    browser.get("about:blank")
    browser.get(link)
    check_headline(browser, answer)
    check_heatmaps(browser, answer, "mean_models_destroyed")
    top, bottom, height, wide = browser.execute_script(
        "const r = document.getElementById('headline').getBoundingClientRect();"
        "return [r.top, r.bottom, innerHeight, document.documentElement.scrollWidth]")
    assert 0 <= top and bottom <= height and wide <= PHONE[0], (top, bottom, height, wide)
    size = browser.execute_script("return parseFloat(getComputedStyle(document.querySelector('table.heat td'))"
                                  ".fontSize)")
    assert size >= 12  # CSS pixels: readable without zooming
    screenshot(browser, "web-matchup-phone.png", tmp_path, at="figure.heatmap")
    inside = browser.execute_script(  # the form, unfolded, fits the phone too
        "document.getElementById('ask-box').open = true;"
        "const box = document.getElementById('ask-box').getBoundingClientRect();"
        "return [...document.querySelectorAll('#ask-box fieldset:not([hidden])')].map(f => f.getBoundingClientRect())"
        ".every(r => !r.width || (r.left >= box.left && r.right <= box.right))")
    assert inside


def test_a_matchup_of_army_lists_uploaded_on_both_sides(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/?q=matchup")
    browser.find_element(By.ID, "army-box").click()
    browser.find_element(By.ID, "army-file").send_keys(str(ARMY))
    wait(browser, lambda d: d.find_element(By.ID, "army-status").text.startswith("Gravel Host test list"))
    browser.find_element(By.ID, "army-b-file").send_keys(str(ARMY))
    wait(browser, lambda d: d.find_element(By.ID, "army-b-status").text.startswith("Gravel Host test list"))
    browser.find_element(By.CSS_SELECTOR, ".whole-army[data-list=army-a]").click()  # a row for each of its units
    assert [i.get_attribute("value") for i in browser.find_elements(By.CSS_SELECTOR, "#army-a input.text")] == [
        "#1", "#2", "#3"]
    browser.find_element(By.ID, "army-a-2").find_element(By.XPATH, "..").find_element(By.CSS_SELECTOR,
                                                                                      ".remove").click()
    browser.find_element(By.ID, "army-b-1").send_keys("#3")
    browser.find_element(By.ID, "ask").click()
    sent = base64.b64encode(ARMY.read_bytes()).decode()
    answer = api(server, "/api/matchup", {"army_a": {"units": ["#1", "#3"], "army": sent},
                                          "army_b": {"units": ["#3"], "army": sent}})
    check_headline(browser, answer)
    check_heatmaps(browser, answer, "mean_models_destroyed")
    assert query(browser.current_url)["a"] == ["#1", "#3"] and query(browser.current_url)["b"] == ["#3"]
    browser.refresh()  # the tab keeps both lists: the link reopens the answer
    check_headline(browser, answer)
    check_heatmaps(browser, answer, "mean_models_destroyed")


# --------------------------------------------------------------------- the situation's controls, from the API
def situation_controls(driver) -> list[dict]:
    return driver.execute_script("""
        return [...document.querySelectorAll('#situation-fields input, #situation-fields select')].map(e => ({
          name: e.name, type: e.type, value: e.type === 'checkbox' ? e.checked : e.value, min: e.min ?? '',
          max: e.max ?? '', options: e.options ? [...e.options].map(o => o.value) : null,
          label: e.labels.length ? e.labels[0].textContent.trim() : null}))""")


def expected_controls(schema: dict) -> list[dict]:
    """The controls the page must build for a situation's JSON schema: one per field, the flags' checkboxes first,
    each in the declared order, with its default, its bounds and its choices (none first where the default is
    null)."""
    found = []
    for name, field in schema["properties"].items():
        choices = field.get("enum") or next((kind["enum"] for kind in field.get("anyOf", []) if "enum" in kind), None)
        default = "" if field["default"] is None else str(field["default"])
        if field.get("type") == "boolean":
            control = {"type": "checkbox", "value": field["default"]}
        elif choices:
            control = {"type": "select-one", "value": default, "options": ([""] if default == "" else []) + choices}
        else:
            control = {"type": "number" if field.get("type") == "integer" else "text", "value": default,
                       "min": str(field.get("minimum", "")), "max": str(field.get("maximum", ""))}
        found.append({"name": name, **control})
    return sorted(found, key=lambda control: control["type"] != "checkbox")


def test_the_situation_controls_are_the_apis_fields_with_their_defaults_bounds_and_choices(server, browser):
    from selenium.webdriver.common.by import By

    with urllib.request.urlopen(f"{server}/api/situation", timeout=30) as response:
        schema = json.load(response)
    browser.get(f"{server}/")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#situation-fields input"))
    shown = situation_controls(browser)
    assert [{key: c[key] for key in e} for c, e in zip(shown, expected_controls(schema))] == expected_controls(schema)
    assert len(shown) == len(schema["properties"]) and all(c["label"] for c in shown)
    # an unset choice is the field's default where it has one (a trial read the edition's 'none' as no edition)
    unset = {name: browser.find_element(By.CSS_SELECTOR, f"#situation-{name} option[value='']").get_attribute("label")
             for name in ("edition", "lethal_hits", "command_reroll")}
    assert unset == {"edition": "default", "lethal_hits": "default", "command_reroll": "none"}


def test_a_situation_field_declared_alone_shows_up_in_the_page_and_its_requests(server, browser):
    """A field declared only on a `Context` subclass (tests/test_declared.py's `Wider`): given its schema, the page
    builds its control with the declared default and bounds, writes it into the URL and sends it with its type."""
    from selenium.webdriver.common.by import By

    from mathhammer_exact.web.schemas import situation_model

    from .test_declared import Wider

    schema = situation_model(Wider, "WiderSituation").model_json_schema()
    browser.get(f"{server}/")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#situation-fields input"))
    browser.execute_script("buildSituation(JSON.parse(arguments[0]))", json.dumps(schema))  # keys in order
    shown = {c["name"]: c for c in situation_controls(browser)}
    assert shown["fervour"] | {"label": None} == {"name": "fervour", "type": "number", "value": "0", "min": "0",
                                                  "max": "3", "options": None, "label": None}
    assert shown["fervour"]["label"] == "Fervour points spent"
    assert shown["teleported"]["type"] == "checkbox" and shown["teleported"]["value"] is False
    assert list(shown) == [control["name"] for control in expected_controls(schema)], list(shown)
    browser.find_element(By.ID, "situation").click()
    browser.find_element(By.NAME, "teleported").click()
    fervour = browser.find_element(By.NAME, "fervour")
    fervour.clear()
    fervour.send_keys("2")
    params = browser.execute_script("return formToParams().toString()")
    assert query(f"?{params}")["fervour"] == ["2"] and query(f"?{params}")["teleported"] == ["1"]
    sent = browser.execute_script("return situation(new URLSearchParams(arguments[0]))", params)
    assert sent == {"teleported": True, "fervour": 2}


def test_a_suggested_unit_of_a_name_several_factions_use_is_asked_with_its_faction(browser, tmp_path, monkeypatch):
    # a trial found 'Land Raider' suggested for Grey Knights and for Space Marines, each filling in plain
    # 'Land Raider', which the server then refused as a name several factions use
    from selenium.webdriver.common.by import By

    from mathhammer_exact.catalogue import build, index

    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(ROOT / "tests" / "fixtures" / "bsdata-factions")
    with running_server() as url:
        browser.get(f"{url}/?q=unit")
        attacker = wait(browser, lambda d: d.find_element(By.ID, "attacker"))
        attacker.send_keys("boulder tank")
        suggested = wait(browser, lambda d: [o.get_attribute("value") for o in
                                             d.find_elements(By.CSS_SELECTOR, "#attacker-names option")])
        assert sorted(suggested) == ["Boulder Tank @ Iron Wardens", "Boulder Tank @ Slate Brothers",
                                     "Boulder Tank @ Stone Legion"]
        attacker.clear()
        attacker.send_keys(suggested[0])
        browser.find_element(By.ID, "target").send_keys("MEQ")
        browser.find_element(By.ID, "ask").click()
        check_headline(browser, api(url, "/api/unit", {"attacker": suggested[0], "target": "MEQ"}))
