"""The browser table in a real browser (tests/browser_support.py: Debian's Chromium, driven
by Playwright, against a real server), at a laptop's size (1366x768) and a phone's (390x844).

With ``SKITGUBBE_SCREENSHOT=FOLDER``, the tests also save the pictures of docs/server.md
there: the table mid-trick, a 27-card hand in phase 2, a hint, and the end with its rematch,
each at both sizes.
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
    SIZES,
    axe_violations,
    create_and_sit,
    in_viewport,
    new_page,
    screenshot,
    staged_table,
    sync_api,
)
from server_support import free_port, start_server

import skitgubbe as sg
from skitgubbe.engine import protocol

CLOCK = re.compile(r"^(\d+) s left$")
# A move of the seat: a card that plays on a tap, or a button (pick up, flip, pass, or the
# move the chosen cards make).
MOVE = "#hand [data-move], #moves [data-move]"


def play_one(page: Any) -> bool:
    """Make one move the way a person would: tap the first card or button that is a move by
    itself, or else choose the first card that goes with others and play what it makes.
    ``False`` when the page re-rendered under the pointer (try again)."""
    try:
        if page.query_selector(MOVE) is None:
            page.click("#hand .card-button.selectable:not([disabled])", timeout=2_000)
            page.click("#moves [data-move]", timeout=2_000)
        else:
            page.click(MOVE, timeout=2_000)
    except sync_api.Error:
        return False
    return True


def wait_for_turn(page: Any) -> None:
    page.wait_for_selector(f"{MOVE}, #hand .card-button.selectable:not([disabled])", timeout=30_000)


def play_until_over(page: Any, seconds: float = 300) -> int:
    """Play whenever it is this seat's turn, until the result shows; how many moves."""
    clicks = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page.wait_for_selector(
            f"{MOVE}, #hand .card-button.selectable:not([disabled]), #end:not([hidden])",
            timeout=30_000,
        )
        if page.is_visible("#end"):
            return clicks
        clicks += play_one(page)
        page.wait_for_timeout(5)
    raise AssertionError(f"the game did not end ({clicks} moves made)")


def play_moves(page: Any, count: int) -> None:
    """Make ``count`` moves, each once it is this seat's turn; then wait for the next turn."""
    for _ in range(count):
        wait_for_turn(page)
        play_one(page)
        page.wait_for_timeout(50)
    wait_for_turn(page)


def check_result(page: Any, url: str, table: str) -> dict[str, Any]:
    """The page says what the game's record says: who lost (or that the move limit ended
    it), in the turn bar, the end box and the log's last line, and the finish order."""
    record = page.request.get(f"{url}/api/tables/{table}/record").json()
    names = page.request.get(f"{url}/api/tables/{table}").json()["names"]
    assert len(record["moves"]) <= MAX_MOVES
    shown = page.inner_text("#result")
    last = page.query_selector_all("#log div")[-1].inner_text()
    result = record["result"]
    if result["truncated"]:
        assert "move limit" in shown, shown
        assert last == "the move limit is reached: the game ends with no loser", last
    elif result["loser"] == 0:
        assert shown == "you are the skitgubbe", shown
        assert last == "game over: you are the skitgubbe", last
    else:
        loser = names[result["loser"]]
        assert shown == f"{loser} is the skitgubbe", shown
        assert last == f"game over: {loser} is the skitgubbe", last
    assert page.inner_text("#turn-text") == shown
    order = [item.inner_text() for item in page.query_selector_all("#finish li")]
    said = ["you" if seat == 0 else names[seat] for seat in result["finish_order"]]
    assert [line.split(" — ")[0] for line in order] == said, order
    return dict(record)


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


def check_accessible(page: Any, failures: list[str]) -> None:
    """No axe-core violation of WCAG 2.1 A or AA, no console error, no failed request."""
    assert axe_violations(page) == []
    assert not failures, failures


def check_layout(page: Any) -> None:
    """Every legal move, the turn bar and the clock are in the window without scrolling;
    the page is no wider than the window; and scrolled down, the turn bar stays."""
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(100)
    assert in_viewport(page, "#turn, #clock, #hand .legal, #moves button") == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(100)
    assert in_viewport(page, "#turn, #clock") == []
    page.evaluate("window.scrollTo(0, 0)")


@pytest.fixture
def staged(tmp_path: Path) -> Any:
    """A server started on a store holding one staged table (:func:`staged_table`); yields
    a function that stages it and gives the server's address, the table and its token."""
    servers: list[Any] = []

    def stage(rules: sg.Rules, seats: list[str | None], seed: int, until: Any) -> tuple:
        db = tmp_path / f"staged{len(servers)}.db"
        table, token, moves = staged_table(db, rules, seats, seed, until=until)
        port = free_port()
        servers.append(start_server(db, port))
        return f"http://127.0.0.1:{port}", table, token, moves

    yield stage
    for process in servers:
        process.terminate()
        try:
            process.wait(15)
        finally:
            process.kill()


def open_seat(page: Any, url: str, table: str, token: str) -> None:
    """Open a staged table's page in a browser that holds seat 0's token."""
    page.goto(url + "/")
    page.evaluate("([t, k]) => localStorage.setItem('skitgubbe-token-' + t, k)", [table, token])
    page.goto(f"{url}/table?id={table}")


@pytest.mark.slow
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_27_card_hand_fits_the_window_and_only_legal_cards_play(
    browser: Any, staged: Any, size: str
) -> None:
    def big_hand(game: sg.Game) -> bool:
        view = game.observation(game.to_move)
        shedding = view.phase.name == "SHEDDING"
        return game.to_move == 0 and shedding and len(view.hand) >= 27 and bool(view.table)
        # (seed 0 gives seat 0 28 cards, a card to beat, and few legal cards)

    url, table, token, _ = staged(sg.Rules.classic(2), [None, "greedy"], 0, big_hand)
    page, failures = new_page(browser, SIZES[size])
    open_seat(page, url, table, token)
    page.wait_for_selector("#hand .card-button.legal", timeout=10_000)
    cards = page.query_selector_all("#hand .card-button")
    assert len(cards) >= 27
    rows = page.query_selector_all("#hand .suit-row")
    assert 1 < len(rows) <= 4  # one row a suit
    suits = [r.get_attribute("aria-label").split(":")[0].split(" ")[0] for r in rows]
    assert suits[0] == "hearts" and "(trumps)" in rows[0].get_attribute("aria-label")
    assert len(set(suits)) == len(suits)
    for row in rows:  # sorted by rank within the suit
        buttons = row.query_selector_all(".card-button")
        ranks = [sg.Card.parse(b.get_attribute("data-card")).rank for b in buttons]
        assert ranks == sorted(ranks)
    assert page.query_selector_all("#hand .trump .trump-mark")  # trumps are marked
    check_layout(page)
    legal = {b.get_attribute("data-move") for b in page.query_selector_all(MOVE)}
    illegal = page.query_selector_all("#hand .card-button.illegal")
    assert illegal and legal and "pick" in legal
    for button in illegal:
        assert button.is_disabled() and button.get_attribute("data-move") is None
    assert page.inner_text("#table-caption") == "on the table"
    top = page.query_selector("#table .play.top img")
    widths = [
        img.bounding_box()["width"]
        for img in page.query_selector_all("#table img, #last-trick img")
    ]
    assert top.bounding_box()["width"] == max(widths)  # the card to beat is the largest
    screenshot(page, f"hand27-{size}.png")
    check_accessible(page, failures)
    # An illegal card does nothing when tapped; a legal one plays.
    before = page.evaluate("state.n")
    illegal[0].click(force=True)
    page.wait_for_timeout(300)
    assert page.evaluate("state.n") == before and page.inner_text("#turn-text") == "your turn"
    card = page.query_selector("#hand [data-move]")
    move = card.get_attribute("data-move")
    card.click()
    page.wait_for_function(f"state.n > {before}", timeout=10_000)
    record_so_far = page.evaluate(
        "[...document.querySelectorAll('#log div')].map(d => d.textContent)"
    )
    assert any(line.startswith("you play " + move_text(move)) for line in record_so_far), move
    assert not failures, failures
    page.context.close()


def move_text(move: str) -> str:
    """A card move as the log writes it (``10H`` as ``10♥``)."""
    return str(protocol.parse_move(move))


@pytest.mark.slow
def test_cards_that_go_together_are_chosen_then_played_with_one_button(
    browser: Any, staged: Any
) -> None:
    def run_to_play(game: sg.Game) -> bool:
        if game.to_move != 0 or game.observation(0).phase.name != "SHEDDING":
            return False
        legal = [protocol.move_text(m).split() for m in game.legal_moves]
        return any(len(m) > 1 for m in legal if "pick" not in m)

    url, table, token, moves = staged(
        sg.Rules.modern(3), [None, "greedy", "greedy"], 3, run_to_play
    )
    page, failures = new_page(browser, DESKTOP)
    open_seat(page, url, table, token)
    page.wait_for_selector("#hand .card-button.selectable", timeout=10_000)
    game = sg.Game.new(sg.Rules.modern(3), seed=3)
    for move in moves:
        game.play(move)
    runs = [
        protocol.move_text(m) for m in game.legal_moves if len(protocol.move_text(m).split()) > 1
    ]
    run = max(runs, key=lambda m: len(m.split()))
    assert not page.is_hidden("#select-note")
    for card in run.split():  # choose the run's cards, one tap each
        page.click(f"#hand [data-card='{card}']")
        assert page.get_attribute(f"#hand [data-card='{card}']", "aria-pressed") == "true"
    button = page.wait_for_selector(f"#moves [data-move='{run}']", timeout=5_000)
    assert button.inner_text().startswith("play ")
    assert axe_violations(page) == []
    before = page.evaluate("state.n")
    button.click()
    page.wait_for_function(f"state.n > {before}", timeout=10_000)
    log = page.inner_text("#log")
    assert "you play " + str(protocol.parse_move(run)) in log
    assert not failures, failures
    page.context.close()


@pytest.mark.slow
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_trick_is_seen_whole_with_who_took_it(browser: Any, server: str, size: str) -> None:
    page, failures = new_page(browser, SIZES[size])
    table = create_and_sit(page, server, players=3, others="easy", name="Ann", bot_delay=0.25)
    page.wait_for_selector("#hand .card-button", timeout=10_000)
    # Every card the pile or the last trick ever shows, and every caption of the last trick.
    page.evaluate(
        """() => {
          window.seen = new Set(); window.captions = new Set();
          const look = () => {
            for (const img of document.querySelectorAll('#table img, #last-trick img')) {
              seen.add(img.dataset.card);
            }
            captions.add(document.getElementById('last-caption').textContent);
          };
          const all = {subtree: true, childList: true, characterData: true};
          new MutationObserver(look).observe(document.body, all);
          look();
        }"""
    )
    play_moves(page, 4)
    for _ in range(20):  # on to a turn with a card to answer, for the picture
        if page.query_selector("#table img") is not None:
            break
        play_moves(page, 1)
    assert in_viewport(page, "#table .play.top, #last-box") == []  # the table is in view
    screenshot(page, f"table-{size}.png")
    assert axe_violations(page) == []
    play_until_over(page)
    record = page.request.get(f"{server}/api/tables/{table}/record").json()
    names = page.request.get(f"{server}/api/tables/{table}").json()["names"]
    game = sg.Game.from_record({**record, "moves": [], "result": None})
    seen = set(page.evaluate("[...seen]"))
    captions = set(page.evaluate("[...captions]"))
    tricks = 0
    for move in record["moves"]:
        game.play(move)
    for event in map(protocol.event_json, game.observation(0).history):
        if event["kind"] == "trick_won":
            tricks += 1
            cards = set(event["cards"])
            assert cards <= seen, (cards - seen, event)  # the answers were all shown
            who = "you" if event["seat"] == 0 else names[event["seat"]]
            assert any(c.startswith(f"{who} win") for c in captions), (who, captions)
    assert tricks > 3
    assert not failures, failures
    page.context.close()


@pytest.mark.slow
def test_one_person_plays_a_whole_game_reviews_it_and_gets_a_rematch(
    browser: Any, server: str
) -> None:
    page, failures = new_page(browser, DESKTOP)
    table = create_and_sit(page, server, players=3, others="easy", name="Ann")
    page.wait_for_selector("#hand .card-button", timeout=10_000)
    assert page.inner_text("#title").endswith("you are Ann")
    seats = page.inner_text("#seats")
    assert "easy 1" in seats and "easy 2" in seats  # two bots of one kind, told apart
    assert "dealer" in page.inner_text(".seat[data-seat='2']")  # the last seat deals
    check_turn_and_clock(page)
    log = page.inner_text("#log")
    assert "easy 1" in log and "easy 2" in log
    assert play_until_over(page) > 5
    check_result(page, server, table)
    assert page.inner_text("#clock") == ""  # nobody is to move
    link = page.wait_for_selector("#review-link:not([hidden])", timeout=5_000)
    assert link.get_attribute("href") == f"/tables/{table}/review?seat=0"
    assert in_viewport(page, "#end, #rematch-button") == []  # the end is in view
    screenshot(page, "end-desktop.png")
    check_accessible(page, failures)
    old = page.request.get(f"{server}/api/tables/{table}").json()
    page.click("#rematch-button")
    page.wait_for_url(re.compile(r".*/table\?id=(?!" + table + r")\w+$"), timeout=10_000)
    page.wait_for_selector("#hand .card-button", timeout=10_000)
    again = page.url.split("id=")[1]
    summary = page.request.get(f"{server}/api/tables/{again}").json()
    assert summary["names"] == old["names"] and summary["after"] == table
    assert summary["dealer"] == (old["dealer"] + 1) % 3
    assert "dealer" in page.inner_text(f".seat[data-seat='{summary['dealer']}']")
    assert play_until_over(page) > 0
    page.wait_for_function("document.getElementById('session').textContent !== ''", timeout=10_000)
    assert page.inner_text("#session").startswith("this session: 2 games")
    # The review of the finished game, from the link at the end.
    page.click("#review-link")
    page.wait_for_url(f"**/tables/{again}/review?seat=0", timeout=10_000)
    page.wait_for_selector("#report:not([hidden])", timeout=180_000)
    assert not failures, failures
    page.context.close()


@pytest.mark.slow
def test_on_a_phone_the_turn_the_clock_a_hint_and_the_end_show(browser: Any, server: str) -> None:
    page, failures = new_page(browser, PHONE)
    create_and_sit(page, server, players=3, others="easy", name="Ann", hints=True, bot_delay=0.8)
    page.wait_for_selector("#hand .card-button", timeout=10_000)
    check_turn_and_clock(page)
    play_one(page)  # the bots pause: whose turn it is shows meanwhile
    page.wait_for_function(
        "/^waiting for easy [12]$/.test(document.getElementById('turn-text').textContent)",
        timeout=10_000,
    )
    assert page.inner_text("#clock") == ""  # a bot has no clock
    play_moves(page, 5)
    check_turn_and_clock(page)
    check_layout(page)
    page.click("#hint-button")
    page.wait_for_selector("#hint .hint-row", timeout=30_000)
    page.query_selector("#hint").scroll_into_view_if_needed()
    screenshot(page, "hint-phone.png")
    check_accessible(page, failures)
    page.evaluate("window.scrollTo(0, 0)")
    play_until_over(page)
    assert in_viewport(page, "#turn") == []
    page.query_selector("#end").scroll_into_view_if_needed()
    assert in_viewport(page, "#rematch-button, #review-link") == []
    screenshot(page, "end-phone.png")
    check_accessible(page, failures)
    page.context.close()


@pytest.mark.slow
def test_a_hint_where_the_table_allows_it_and_a_clear_refusal_where_not(
    browser: Any, server: str
) -> None:
    page, failures = new_page(browser, DESKTOP)
    create_and_sit(page, server, players=3, others="easy", name="Ann", hints=True)
    for turn in range(3):  # a hint at three turns
        play_moves(page, 2)
        assert page.inner_text("#hint-button") == "hint"
        page.click("#hint-button")
        page.wait_for_selector("#hint .hint-row", timeout=30_000)
        legal = sorted(b.get_attribute("data-move") for b in page.query_selector_all(MOVE))
        rows = page.query_selector_all("#hint .hint-row")
        assert sorted(r.get_attribute("data-move") for r in rows) == legal
        best = page.query_selector("#hint .hint-row.best").get_attribute("data-move")
        assert page.query_selector(f"[data-move='{best}']").get_attribute("class").count("hinted")
        for row in rows:  # every percentage with its error
            assert re.search(r"\d+\.\d % ± \d+\.\d", row.inner_text()), row.inner_text()
        assert "simulations" in page.inner_text("#hint .hint-title")
        if turn == 0:
            screenshot(page, "hint-desktop.png")
            assert axe_violations(page) == []
    page.context.close()
    page, refused = new_page(browser, DESKTOP)
    create_and_sit(page, server, players=3, others="easy", name="Bo")
    wait_for_turn(page)
    assert page.is_hidden("#hint-button")  # a table without hints offers none
    page.evaluate("askHint()")  # asked all the same: the server says why not, once
    page.wait_for_selector("#hint .hint-refused", timeout=10_000)
    assert "this table gives no hints" in page.inner_text("#hint")
    assert page.inner_text("#error") == ""  # said once, in the hint's box
    assert not page.query_selector_all("#hint .hint-row")
    play_moves(page, 1)  # the table plays on
    assert not failures and not refused, failures + refused
    page.context.close()


@pytest.mark.slow
def test_two_people_share_a_link_play_each_other_and_rematch(browser: Any, server: str) -> None:
    first, second = new_page(browser, DESKTOP), new_page(browser, PHONE)  # two storages
    (ann, ann_failures), (bo, bo_failures) = first, second
    table = create_and_sit(ann, server, players=2, others="open", name="Ann")
    ann.wait_for_selector("#waiting:not([hidden])", timeout=10_000)
    for _ in range(10):  # waiting: never "your turn", and no move to make
        assert ann.inner_text("#turn-text") == "waiting for 1 more player"
        assert ann.query_selector(MOVE) is None
        # The creator holds a seat: never the form to sit down again (b607dc1 showed it, a
        # stylesheet's display: flex over hidden, and sat the same browser twice).
        assert not ann.is_visible("#sit") and ann.is_visible("#share")
        ann.wait_for_timeout(100)
    assert "open seat" in ann.inner_text("#seats") and "seat 1" not in ann.inner_text("#seats")
    link = ann.input_value("#share-link")
    assert link == f"{server}/table?id={table}"
    assert axe_violations(ann) == []
    bo.goto(link)  # the link, opened by someone without a seat: a form to sit down
    bo.wait_for_selector("#sit:not([hidden])", timeout=10_000)
    bo.fill("#sit-name", "Bo")
    bo.click("#sit-button")
    bo.wait_for_selector("#hand .card-button", timeout=10_000)
    bo.wait_for_function("document.getElementById('waiting').hidden", timeout=10_000)
    ann.wait_for_function("document.getElementById('waiting').hidden", timeout=10_000)
    assert "Bo" in ann.inner_text("#seats") and "Ann" in bo.inner_text("#seats")
    waiting_seen = False
    for _ in range(3000):
        for page, other in ((ann, "Bo"), (bo, "Ann")):
            waiting_seen |= page.inner_text("#turn-text") == f"waiting for {other}"
            if page.query_selector(MOVE) is not None:
                with contextlib.suppress(sync_api.Error):  # re-rendered: next round
                    page.click(MOVE, timeout=2_000)
        if ann.is_visible("#end") and bo.is_visible("#end"):
            break
        ann.wait_for_timeout(20)
    assert ann.is_visible("#end") and bo.is_visible("#end")
    assert waiting_seen
    ann.click("#rematch-button")  # Ann asks; Bo is told, and joins at his own seat
    ann.wait_for_url(re.compile(r".*/table\?id=(?!" + table + r")\w+$"), timeout=10_000)
    bo.wait_for_function(
        "document.getElementById('rematch-button').textContent === 'join the rematch'",
        timeout=10_000,
    )
    bo.click("#rematch-button")
    bo.wait_for_url(ann.url, timeout=10_000)
    for page in (ann, bo):
        page.wait_for_function("document.getElementById('waiting').hidden", timeout=10_000)
    assert bo.inner_text("#title").endswith("you are Bo")
    assert not ann_failures and not bo_failures, ann_failures + bo_failures
    ann.context.close()
    bo.context.close()


@pytest.mark.slow
def test_every_move_can_be_made_with_the_keyboard(browser: Any, server: str) -> None:
    page, failures = new_page(browser, DESKTOP)
    create_and_sit(page, server, players=3, others="easy", name="Ann")
    for _ in range(3):
        wait_for_turn(page)
        before = page.evaluate("state.n")
        for _ in range(80):  # Tab through the page until a move has the focus
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.matches('[data-move]')"):
                break
        else:
            raise AssertionError("no move reached with the Tab key")
        page.keyboard.press("Enter")
        page.wait_for_function(f"state.n > {before}", timeout=10_000)
    assert not failures, failures
    page.context.close()


@pytest.mark.slow
def test_a_reload_mid_game_resumes_the_seat(browser: Any, server: str) -> None:
    page, failures = new_page(browser, DESKTOP)
    table = create_and_sit(page, server, players=3, others="easy", name="Ann")
    play_moves(page, 3)
    hand = sorted(
        b.get_attribute("data-card") for b in page.query_selector_all("#hand .card-button")
    )
    legal = sorted(b.get_attribute("data-move") for b in page.query_selector_all(MOVE))
    last = page.inner_text("#last-caption")
    page.reload()
    wait_for_turn(page)
    assert page.inner_text("#title").endswith("you are Ann")
    again = sorted(
        b.get_attribute("data-card") for b in page.query_selector_all("#hand .card-button")
    )
    assert again == hand
    assert sorted(b.get_attribute("data-move") for b in page.query_selector_all(MOVE)) == legal
    assert page.inner_text("#last-caption") == last  # the last trick, from the history
    check_turn_and_clock(page)  # the clock goes on from what the server says is left
    assert play_until_over(page) > 0
    check_result(page, server, table)
    assert not failures, failures
    page.context.close()


@pytest.mark.slow
def test_a_spectator_sees_the_table_and_no_hand(browser: Any, server: str) -> None:
    page, failures = new_page(browser, PHONE)
    config = {"seats": ["easy", "easy", "easy"], "bot_delay": 0.3, "rules": {"max_moves": 100}}
    table = page.request.post(f"{server}/api/tables", data=config).json()["id"]
    page.goto(f"{server}/table?id={table}&watch=1")
    page.wait_for_function("document.getElementById('title').textContent.endsWith('watching')")
    page.wait_for_selector("#table img, #last-trick img", timeout=30_000)
    assert page.query_selector_all("#hand .card-button") == []
    assert page.is_hidden("#hint-button") and page.is_hidden("#waiting")
    assert re.fullmatch(r"waiting for easy [123]|", page.inner_text("#turn-text"))
    check_accessible(page, failures)
    page.wait_for_selector("#end:not([hidden])", timeout=120_000)
    assert page.is_hidden("#rematch-button")  # a spectator has no seat to take again
    assert page.inner_text("#review-link") == "review this game move by move"
    check_accessible(page, failures)
    page.context.close()
