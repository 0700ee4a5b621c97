"""The lobby and the rules page in a real browser (tests/browser_support.py: Debian's Chromium,
driven by Playwright, against a real server), at 1366x768 and 390x844: no console error, no
failed request, no axe-core violation of WCAG A or AA; the form's own words for a bad value (and
nothing sent); "no clock"; the name kept; who lost a finished table; every action by keyboard.

With ``SKITGUBBE_SCREENSHOT=FOLDER`` they also save ``lobby-desktop.png``, ``lobby-phone.png``
and ``rules-phone.png`` there.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from browser_support import SIZES, axe_violations, new_page, screenshot

pytestmark = pytest.mark.slow

MOVE_TIME_WORDS = "seconds per move: a whole number from 1 to 3600, or choose no clock"
API_WORDS = ("move_time", "max_moves", "bot_delay", "must be a number")
SIZE_NAMES = sorted(SIZES)


def api_table(page: Any, server: str, config: dict[str, Any]) -> dict[str, Any]:
    """A table made through the HTTP API (as another client would), its summary."""
    response = page.request.post(server + "/api/tables", data=config)
    assert response.status == 201, response.text()
    return dict(response.json())


def wait_over(page: Any, server: str, table: str, seconds: float = 120) -> dict[str, Any]:
    """The table's summary once its game is over (bots only: it plays on its own)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        summary = dict(page.request.get(f"{server}/api/tables/{table}").json())
        if summary["status"] == "over":
            return summary
        page.wait_for_timeout(200)
    raise AssertionError(f"table {table} did not finish in {seconds} s")


def reset(page: Any) -> None:
    """The form as it comes, every field good (a reload could bring the last values back)."""
    page.fill("#max-moves", "")
    page.fill("#move-time", "60")
    page.fill("#bot-delay", "0.6")
    page.fill("#name", "player")
    page.uncheck("#no-clock")


def status_of(page: Any, table: str) -> str:
    """The status cell of the lobby's row for ``table``, once the lobby lists it."""
    cell = f"tr[data-table='{table}'] td:nth-child(3)"
    page.wait_for_selector(cell, timeout=10_000)
    return str(page.inner_text(cell))


@pytest.mark.parametrize("size", SIZE_NAMES)
def test_the_lobby_and_the_rules_page_pass_axe(browser: Any, server: str, size: str) -> None:
    page, failures = new_page(browser, SIZES[size])
    # Tables of every kind in the list: bots (emoji), open seats (sit buttons), a finished one.
    over = api_table(page, server, {"seats": ["random", "random"], "rules": {"max_moves": 40}})
    api_table(page, server, {"seats": [None, None]})
    wait_over(page, server, over["id"])
    page.goto(server + "/")
    assert "over ·" in status_of(page, over["id"])
    page.wait_for_selector("button.sit")
    assert axe_violations(page) == []
    screenshot(page, f"lobby-{size}.png")
    # The form with its errors showing passes too.
    page.fill("#move-time", "")
    page.fill("#bot-delay", "99")
    page.click("#create-button")
    page.wait_for_selector("#move-time-error:not(:empty)")
    assert axe_violations(page) == []
    page.click("a[href='/rules']")
    page.wait_for_url("**/rules")
    assert page.inner_text("h2#flip-title") == "flip: try your luck"
    assert axe_violations(page) == []
    page.goto(server + "/rules#pick-up")
    assert page.evaluate("document.querySelector(':target').id") == "pick-up"
    screenshot(page, f"rules-{size}.png")
    page.click("header a[href='/']")
    page.wait_for_url(server + "/")
    assert not failures, failures


@pytest.mark.parametrize("size", SIZE_NAMES)
def test_a_bad_value_is_told_in_the_forms_words_and_nothing_is_sent(
    browser: Any, server: str, size: str
) -> None:
    page, failures = new_page(browser, SIZES[size])
    posts: list[str] = []
    page.on("request", lambda r: r.method == "POST" and posts.append(r.url))
    page.goto(server + "/")
    page.wait_for_load_state("networkidle")
    cases = [  # field, what is typed, the words beside it
        ("#move-time", "", MOVE_TIME_WORDS),
        ("#move-time", "0", MOVE_TIME_WORDS),
        ("#move-time", "2.5", MOVE_TIME_WORDS),
        ("#move-time", "4000", MOVE_TIME_WORDS),
        ("#max-moves", "0", "moves at most: a whole number from 1 to 10000"),
        ("#max-moves", "10001", "moves at most: a whole number from 1 to 10000"),
        ("#bot-delay", "", "bots pause: a number of seconds from 0 to 60"),
        ("#bot-delay", "-1", "bots pause: a number of seconds from 0 to 60"),
        ("#name", "Ann\u00a0Bo", "your name: letters, digits, signs and plain spaces only"),
    ]
    for selector, typed, words in cases:
        reset(page)
        page.fill(selector, typed)
        page.click("#create-button")
        error = page.locator(selector + "-error")
        error.wait_for(state="visible")
        said = error.inner_text()
        assert said.startswith(words), (selector, typed, said)
        assert page.get_attribute(selector, "aria-invalid") == "true"
        described = page.get_attribute(selector, "aria-describedby") or ""
        assert selector[1:] + "-error" in described.split()
        assert page.evaluate("document.activeElement.id") == selector[1:]  # focus on it
        shown = page.inner_text("main")
        assert not any(word in shown for word in API_WORDS), shown
    # Typing the letter e leaves a number field holding no number: the form's words again.
    reset(page)
    page.fill("#move-time", "")
    page.type("#move-time", "e")
    page.click("#create-button")
    assert page.inner_text("#move-time-error") == MOVE_TIME_WORDS
    # Corrected, the mark goes as it is typed; then the table is made.
    page.fill("#move-time", "45")
    assert page.get_attribute("#move-time", "aria-invalid") is None
    assert page.inner_text("#move-time-error") == ""
    assert posts == []  # nothing was sent while the form was wrong
    page.select_option("#players", "2")
    page.click("#create-button")
    page.wait_for_url("**/table?id=*", timeout=10_000)
    table = page.url.split("id=")[1]
    assert page.request.get(f"{server}/api/tables/{table}").json()["move_time"] == 45
    assert len([url for url in posts if url.endswith("/api/tables")]) == 1
    page.wait_for_load_state("networkidle")
    assert not failures, failures


@pytest.mark.parametrize("size", SIZE_NAMES)
def test_no_clock_makes_a_table_without_one_and_the_name_is_kept(
    browser: Any, server: str, size: str
) -> None:
    page, failures = new_page(browser, SIZES[size])
    page.goto(server + "/")
    assert page.input_value("#name") == "player"  # a new browser: the form's own
    page.fill("#move-time", "")  # no clock: the empty field does not matter
    page.check("#no-clock")
    assert page.is_disabled("#move-time")
    page.select_option("#players", "2")
    page.select_option("#others", "easy")
    page.fill("#name", "Ann")
    page.click("#create-button")
    page.wait_for_url("**/table?id=*", timeout=10_000)
    table = page.url.split("id=")[1]
    summary = page.request.get(f"{server}/api/tables/{table}").json()
    assert summary["move_time"] is None
    assert summary["names"][0] == "Ann"
    page.wait_for_load_state("networkidle")  # its pictures loaded: leaving aborts none
    page.goto(server + "/")
    assert page.input_value("#name") == "Ann"  # remembered
    page.fill("#name", "Bea")
    page.keyboard.press("Tab")  # changed (not used yet): kept too
    page.reload()
    assert page.input_value("#name") == "Bea"
    other, other_failures = new_page(browser, SIZES[size])  # another browser: not known there
    other.goto(server + "/")
    assert other.input_value("#name") == "player"
    assert not failures and not other_failures, failures + other_failures


@pytest.mark.parametrize("size", SIZE_NAMES)
def test_a_finished_table_says_who_lost(browser: Any, server: str, size: str) -> None:
    page, failures = new_page(browser, SIZES[size])
    played = api_table(page, server, {"seats": ["random", "random", "random"]})
    cut = api_table(page, server, {"seats": ["random", "random"], "rules": {"max_moves": 6}})
    played, cut = wait_over(page, server, played["id"]), wait_over(page, server, cut["id"])
    page.goto(server + "/")
    result = played["result"]
    if result["truncated"]:
        expected = "over · no loser (move limit)"
    else:
        expected = f"over · {played['names'][result['loser']]} was the skitgubbe"
    assert status_of(page, played["id"]) == expected
    assert cut["result"]["truncated"] and cut["result"]["loser"] is None
    assert status_of(page, cut["id"]) == "over · no loser (move limit)"
    # The seats' pictures have words for screen readers; the pictures are hidden from them.
    seats = page.locator(f"tr[data-table='{played['id']}'] td:nth-child(2)")
    words = seats.evaluate("cell => cell.innerText + '|' + cell.textContent")
    assert "bot: random 1" in words.split("|")[1], words
    assert seats.locator(".kind[aria-hidden='true']").count() == 3
    assert not failures, failures


@pytest.mark.parametrize("size", SIZE_NAMES)
def test_every_lobby_action_by_keyboard(browser: Any, server: str, size: str) -> None:
    page, failures = new_page(browser, SIZES[size])
    open_table = api_table(page, server, {"seats": [None, None]})
    page.goto(server + "/")
    page.wait_for_selector("button.sit")
    reached: list[str] = []
    page.locator("body").focus()
    for _ in range(60):  # Tab through the page: every control of the form, then a seat
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "(() => { const e = document.activeElement;"
            " return e.id || e.getAttribute('href') || e.textContent.trim(); })()"
        )
        reached.append(str(focused))
        if focused == "sit at seat 0":
            break
    for control in (
        "players", "rules", "others", "max-moves", "move-time", "no-clock", "bot-delay",
        "hints", "name", "create-button", "/rules",
    ):  # fmt: skip
        assert control in reached, (control, reached)
    assert (
        reached.index("players") < reached.index("create-button") < reached.index("sit at seat 0")
    )
    # The checkbox by the space bar, the table by Enter on the focused button.
    page.focus("#no-clock")
    page.keyboard.press("Space")
    assert page.is_checked("#no-clock") and page.is_disabled("#move-time")
    page.keyboard.press("Space")
    assert not page.is_checked("#no-clock")
    page.focus("button.sit")
    page.wait_for_timeout(3500)  # a refresh of the list keeps the focus where it was
    assert page.evaluate("document.activeElement.textContent") == "sit at seat 0"
    page.keyboard.press("Enter")
    page.wait_for_url("**/table?id=*", timeout=10_000)
    assert page.url.endswith("id=" + open_table["id"])
    page.wait_for_load_state("networkidle")  # its pictures loaded: leaving aborts none
    page.goto(server + "/")
    page.focus("#create-button")
    page.keyboard.press("Enter")  # Enter on the create button makes a table and sits
    page.wait_for_url("**/table?id=*", timeout=10_000)
    assert not page.url.endswith("id=" + open_table["id"])
    page.wait_for_load_state("networkidle")
    assert not failures, failures
