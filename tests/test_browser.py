"""The browser table in a real browser (tests/browser_support.py: Debian's Chromium, driven
by Playwright, against a real server).

With ``SKITGUBBE_SCREENSHOT=FOLDER``, the tests also save the pictures of docs/server.md
there: ``table-desktop.png`` (1366x768), ``table-phone.png`` (390x844) and ``review.png``.
"""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    DESKTOP,
    MAX_MOVES,
    PHONE,
    create_and_sit,
    new_page,
    screenshot,
    sync_api,
)

CLOCK = re.compile(r"^(\d+) s left$")


def play_until_over(page: Any, seconds: float = 300) -> int:
    """Click the first legal move whenever there is one, until the result shows."""
    clicks = 0
    deadline = time.monotonic() + seconds
    for _ in range(5000):
        if time.monotonic() > deadline:
            break
        page.wait_for_selector("#moves button, #result:not(:empty)", timeout=30_000)
        if page.inner_text("#result"):
            return clicks
        button = page.query_selector("#moves button")
        if button is not None:
            try:
                button.click(timeout=2_000)
                clicks += 1
            except sync_api.Error:
                pass  # re-rendered under the pointer: look again
        page.wait_for_timeout(5)
    raise AssertionError(f"the game did not end ({clicks} moves clicked)")


def click_moves(page: Any, count: int) -> None:
    """Play ``count`` moves, each the first legal one, once it is this seat's turn."""
    for _ in range(count):
        page.wait_for_selector("#moves button", timeout=30_000)
        with contextlib.suppress(sync_api.Error):  # re-rendered under the pointer: again
            page.click("#moves button", timeout=2_000)
        page.wait_for_timeout(50)
    page.wait_for_selector("#moves button", timeout=30_000)


def check_result(page: Any, url: str, table: str) -> None:
    """The page says what the game's record says: who lost, or that the move limit ended it;
    and so does the log's last line (which once said "you end the game")."""
    record = page.request.get(f"{url}/api/tables/{table}/record").json()
    names = page.request.get(f"{url}/api/tables/{table}").json()["names"]
    assert len(record["moves"]) <= MAX_MOVES
    shown = page.inner_text("#result")
    last = page.query_selector_all("#log div")[-1].inner_text()
    if record["result"]["truncated"]:
        assert "move limit" in shown, shown
        assert last == "the move limit is reached: the game ends with no loser", last
    elif record["result"]["loser"] == 0:
        assert shown == "you are the skitgubbe", shown
        assert last == "game over: you are the skitgubbe", last
    else:
        loser = names[record["result"]["loser"]]
        assert re.fullmatch(r"easy [12]", loser), names
        assert shown == f"{loser} is the skitgubbe", shown
        assert last == f"game over: {loser} is the skitgubbe", last
    assert page.inner_text("#turn-text") == shown


def check_turn_and_clock(page: Any) -> None:
    """It is this seat's turn, said in words, and the clock counts down each second."""
    page.wait_for_function(
        "document.getElementById('turn-text').textContent === 'your turn'", timeout=30_000
    )
    page.wait_for_function(
        "/^\\d+ s left$/.test(document.getElementById('clock').textContent)", timeout=5_000
    )
    before = page.inner_text("#clock")
    page.wait_for_timeout(1_500)
    after = page.inner_text("#clock")
    first, then = CLOCK.match(before), CLOCK.match(after)
    assert first and then, (before, after)
    assert 0 < int(first[1]) - int(then[1]) <= 3, (before, after)  # it ticks, every second
    assert int(first[1]) <= 60
    assert page.inner_text("#turn-text") == "your turn"


@pytest.mark.slow
def test_one_person_plays_a_whole_game_against_bots_by_clicking_and_reviews_it(
    browser: Any, server: str, tmp_path: Path
) -> None:
    page, failures = new_page(browser, DESKTOP)
    table = create_and_sit(page, server, players=3, others="easy", name="Ann")
    page.wait_for_selector("#hand img.card", timeout=10_000)
    assert page.inner_text("#title").endswith("you are Ann")
    seats = page.inner_text("#seats")
    assert "easy 1" in seats and "easy 2" in seats  # two bots of one kind, told apart
    check_turn_and_clock(page)
    click_moves(page, 8)  # into the game, for the picture
    shot = tmp_path / "table.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    check_turn_and_clock(page)
    screenshot(page, "table-desktop.png")
    log = page.inner_text("#log")
    assert "easy 1" in log and "easy 2" in log
    clicks = play_until_over(page)
    assert clicks > 5
    check_result(page, server, table)
    assert page.inner_text("#clock") == ""  # nobody is to move
    # The review of the finished game, from the link at the end.
    link = page.wait_for_selector("#review-link:not([hidden])", timeout=5_000)
    assert link.get_attribute("href") == f"/tables/{table}/review?seat=0"
    link.click()
    page.wait_for_url(f"**/tables/{table}/review?seat=0", timeout=10_000)
    page.wait_for_selector("#report:not([hidden])", timeout=180_000)
    record = page.request.get(f"{server}/api/tables/{table}/record").json()
    assert len(page.query_selector_all("#moves tr")) == len(record["moves"])
    page.wait_for_function("document.getElementById('graph').naturalWidth > 0", timeout=10_000)
    review = page.request.get(f"{server}/api/tables/{table}/review?seat=0").json()
    assert len(page.query_selector_all("#moves tr.costly")) == len(review["costliest"])
    assert len(page.query_selector_all("#costliest li")) == max(1, len(review["costliest"]))
    assert "Ann" in page.inner_text("#heading")
    screenshot(page, "review.png")
    assert not failures, failures
    page.context.close()


@pytest.mark.slow
def test_on_a_phone_the_turn_the_clock_and_a_hint_show_and_nothing_is_missing(
    browser: Any, server: str
) -> None:
    page, failures = new_page(browser, PHONE)
    create_and_sit(page, server, players=3, others="easy", name="Ann", hints=True, bot_delay=0.8)
    page.wait_for_selector("#hand img.card", timeout=10_000)
    check_turn_and_clock(page)
    page.click("#moves button")  # the bots pause: whose turn it is shows meanwhile
    page.wait_for_function(
        "/^waiting for easy [12]$/.test(document.getElementById('turn-text').textContent)",
        timeout=10_000,
    )
    assert page.inner_text("#clock") == ""  # a bot has no clock
    click_moves(page, 5)
    check_turn_and_clock(page)
    page.click("#hint-button")
    page.wait_for_selector("#hint .hint-row", timeout=30_000)
    screenshot(page, "table-phone.png")
    assert not failures, failures  # the icon too: no 404 on a phone
    page.context.close()


@pytest.mark.slow
def test_a_hint_where_the_table_allows_it_and_a_clear_refusal_where_not(
    browser: Any, server: str
) -> None:
    page, failures = new_page(browser, DESKTOP)
    create_and_sit(page, server, players=3, others="easy", name="Ann", hints=True)
    for _ in range(3):  # a hint at three turns
        click_moves(page, 2)
        assert page.inner_text("#hint-button") == "hint"
        page.click("#hint-button")
        page.wait_for_selector("#hint .hint-row", timeout=30_000)
        buttons = page.query_selector_all("#moves button")
        legal = sorted(b.get_attribute("data-move") for b in buttons)
        rows = page.query_selector_all("#hint .hint-row")
        assert sorted(r.get_attribute("data-move") for r in rows) == legal
        best = page.query_selector("#hint .hint-row.best").get_attribute("data-move")
        assert page.query_selector("#moves button.hinted").get_attribute("data-move") == best
        assert re.search(r"\d+ %", page.inner_text("#hint"))
    page.context.close()
    page, refused = new_page(browser, DESKTOP)
    create_and_sit(page, server, players=3, others="easy", name="Bo")
    page.wait_for_selector("#moves button", timeout=30_000)
    assert page.inner_text("#hint-button") == "hint (off at this table)"
    page.click("#hint-button")  # asked all the same: the server says why not
    page.wait_for_selector("#hint .hint-refused", timeout=10_000)
    assert "this table gives no hints" in page.inner_text("#hint")
    assert page.inner_text("#hint-button") == "no hints at this table"
    assert page.is_disabled("#hint-button")
    assert not page.query_selector_all("#hint .hint-row")
    click_moves(page, 1)  # the table plays on
    assert not failures and not refused, failures + refused
    page.context.close()


@pytest.mark.slow
def test_two_people_in_two_browsers_play_each_other(browser: Any, server: str) -> None:
    first, second = browser.new_context(), browser.new_context()  # two people, two storages
    ann, bo = first.new_page(), second.new_page()
    table = create_and_sit(ann, server, players=2, others="open", name="Ann")
    bo.goto(server + "/")
    bo.fill("#name", "Bo")
    bo.click(f"tr[data-table='{table}'] button.sit", timeout=10_000)
    bo.wait_for_url("**/table?id=*", timeout=10_000)
    waiting_seen = False
    for _ in range(2000):
        for page, other in ((ann, "Bo"), (bo, "Ann")):
            waiting_seen |= page.inner_text("#turn-text") == f"waiting for {other}"
            button = page.query_selector("#moves button")
            if button is not None:
                with contextlib.suppress(sync_api.Error):  # re-rendered: next round
                    button.click(timeout=2_000)
        if ann.inner_text("#result") and bo.inner_text("#result"):
            break
        ann.wait_for_timeout(20)
    assert ann.inner_text("#result") and bo.inner_text("#result")
    assert "Bo" in ann.inner_text("#seats") and "Ann" in bo.inner_text("#seats")
    assert waiting_seen
    first.close()
    second.close()


@pytest.mark.slow
def test_a_reload_mid_game_resumes_the_seat(browser: Any, server: str) -> None:
    page = browser.new_page()
    table = create_and_sit(page, server, players=3, others="easy", name="Ann")
    for _ in range(3):
        page.wait_for_selector("#moves button", timeout=30_000)
        page.click("#moves button")
    page.wait_for_selector("#moves button", timeout=30_000)
    hand = sorted(img.get_attribute("data-card") for img in page.query_selector_all("#hand img"))
    legal = [b.get_attribute("data-move") for b in page.query_selector_all("#moves button")]
    page.reload()
    page.wait_for_selector("#moves button", timeout=30_000)
    assert page.inner_text("#title").endswith("you are Ann")
    again = sorted(img.get_attribute("data-card") for img in page.query_selector_all("#hand img"))
    assert again == hand
    assert [b.get_attribute("data-move") for b in page.query_selector_all("#moves button")] == legal
    check_turn_and_clock(page)  # the clock goes on from what the server says is left
    assert play_until_over(page) > 0
    check_result(page, server, table)
    page.close()
