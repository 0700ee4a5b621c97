"""What the server tells people about play: whose turn it is and the clock, the seats' names,
hints at the tables that allow them, and reviews of finished games (no browser; the browser
table itself is tests/test_browser.py).

Servers listen on 127.0.0.1 only; every loop is bounded in count and in time.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any, ClassVar

import pytest

aiohttp = pytest.importorskip("aiohttp")
from aiohttp.test_utils import TestClient  # noqa: E402
from server_support import serve  # noqa: E402

import skitgubbe as sg  # noqa: E402
from skitgubbe.engine import protocol  # noqa: E402
from skitgubbe.server import (  # noqa: E402
    Lobby,
    SQLiteStore,
    StoredSeat,
    StoredTable,
    Table,
    TableConfig,
    TableError,
    hash_token,
)
from skitgubbe.server import tables as tables_module  # noqa: E402
from skitgubbe.server.advice import Advisor, hint, hint_seed, review  # noqa: E402

SHORT = {"max_moves": 600}
CHEAP = {"hint_engine": "ismcts:iterations=300", "review_engine": "ismcts:iterations=200"}


async def new_table(client: TestClient, **config: Any) -> dict[str, Any]:
    config.setdefault("seats", [None, "greedy", "greedy"])
    config.setdefault("rules", SHORT)
    response = await client.post("/api/tables", json=config)
    assert response.status == 201, await response.text()
    return dict(await response.json())


async def claim(client: TestClient, table: str, seat: int = 0, name: str = "Ann") -> str:
    response = await client.post(f"/api/tables/{table}/claim", json={"seat": seat, "name": name})
    assert response.status == 201, await response.text()
    client.session.cookie_jar.clear()  # each person sits down from a browser of their own
    return str((await response.json())["token"])


async def join(client: TestClient, table: str, token: str | None) -> Any:
    ws = await client.ws_connect("/ws")
    first = {"type": "join", "table": table, "token": token} if token else None
    await ws.send_json(first or {"type": "watch", "table": table})
    return ws


async def next_frame(ws: Any) -> dict[str, Any]:
    message = await asyncio.wait_for(ws.receive(), 30)
    assert message.type == aiohttp.WSMsgType.TEXT, message
    return dict(json.loads(message.data))


async def until(ws: Any, done: Any, limit: int = 3000) -> list[dict[str, Any]]:
    """Frames until ``done(frame)``; at most ``limit``."""
    frames = []
    for _ in range(limit):
        frames.append(await next_frame(ws))
        if done(frames[-1]):
            return frames
    raise AssertionError("no such frame came")


def prompted(frame: dict[str, Any]) -> bool:
    return bool(frame.get("legal"))


# -- the configuration ---------------------------------------------------------------------


def test_hints_are_off_by_default_and_only_a_boolean_turns_them_on() -> None:
    assert TableConfig.from_json({"seats": [None, "greedy"]}).hints is False
    assert TableConfig.from_json({"seats": [None, "greedy"], "hints": None}).hints is False
    assert TableConfig.from_json({"seats": [None, "greedy"], "hints": True}).hints is True
    for bad in ["yes", 1, 0, [], {"on": True}]:
        with pytest.raises(TableError, match="hints must be true or false"):
            TableConfig.from_json({"seats": [None, "greedy"], "hints": bad})

    async def test(client: TestClient) -> None:
        plain = await new_table(client)
        assert plain["hints"] is False
        helped = await new_table(client, hints=True)
        assert helped["hints"] is True
        refused = await client.post("/api/tables", json={"seats": [None, "greedy"], "hints": 1})
        assert refused.status == 400
        assert "hints must be true or false, not 1" in (await refused.json())["error"]

    serve(test)


def test_a_tables_hints_setting_is_stored_and_survives_a_restart(tmp_path: Path) -> None:
    path = str(tmp_path / "server.db")

    async def first() -> tuple[str, str]:
        lobby = Lobby(SQLiteStore(path))
        helped = lobby.create({"seats": [None, "greedy"], "hints": True})
        plain = lobby.create({"seats": [None, "greedy"]})
        await lobby.close()
        lobby.store.close()
        return helped.id, plain.id

    helped, plain = asyncio.run(first())

    async def second() -> tuple[bool, bool]:
        lobby = Lobby(SQLiteStore(path))
        assert lobby.restore() == 2
        found = lobby.get(helped).config.hints, lobby.get(plain).config.hints
        await lobby.close()
        lobby.store.close()
        return found

    assert asyncio.run(second()) == (True, False)


def test_a_bad_hint_or_review_engine_is_refused_when_the_server_is_made() -> None:
    from skitgubbe.errors import ArgumentError

    with pytest.raises(ArgumentError, match="hint_engine: an analysis needs a search bot"):
        Lobby(SQLiteStore(":memory:"), hint_engine="greedy")
    with pytest.raises(ArgumentError, match="review_engine"):
        Lobby(SQLiteStore(":memory:"), review_engine="ismcts:iterations=-4")


# -- names and the clock ---------------------------------------------------------------------


def test_two_bots_of_one_kind_have_names_that_tell_them_apart() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, seats=[None, "easy", "easy", "hard"], move_time=30)
        assert table["names"] == ["seat 0", "easy 1", "easy 2", "hard"]
        ws = await join(client, table["id"], await claim(client, table["id"], name="easy"))
        welcome = await next_frame(ws)
        assert welcome["names"] == ["easy 1", "easy 2", "easy 3", "hard"]  # a person too
        assert len(set(welcome["names"])) == 4

    serve(test)


def test_every_frame_carries_the_clock_of_the_person_the_table_awaits() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, seats=[None, None], move_time=60)
        tokens = [await claim(client, table["id"], seat, f"P{seat}") for seat in (0, 1)]
        sockets = [await join(client, table["id"], token) for token in tokens]
        watcher = await join(client, table["id"], None)
        welcomes = [await next_frame(ws) for ws in [*sockets, watcher]]
        assert all(w["type"] == "welcome" for w in welcomes)
        for frame in welcomes:  # seat 0 leads: everyone sees its clock running
            clock = frame["clock"]
            assert clock["seat"] == 0 and clock["move_time"] == 60, frame
            assert 50 < clock["time_left"] <= 60
            assert set(clock) == {"seat", "time_left", "move_time"}  # timing only
        assert welcomes[0]["time_left"] == welcomes[0]["clock"]["time_left"]
        assert welcomes[1]["time_left"] is None and welcomes[1]["legal"] == []
        await asyncio.sleep(1.1)
        await sockets[0].send_json(
            {"type": "move", "n": welcomes[0]["n"], "move": welcomes[0]["legal"][0]}
        )
        for ws in [*sockets, watcher]:  # seat 1's clock starts, and everyone is told
            frame = (await until(ws, lambda f: f["type"] == "update" and bool(f["moves"])))[-1]
            assert frame["clock"]["seat"] == 1 and frame["clock"]["time_left"] > 59, frame
        # Seated before the start: told when the first clock starts, though nobody moved.
        early = await new_table(client, seats=[None, None], move_time=60)
        waiting = await join(client, early["id"], await claim(client, early["id"], 1, "Bo"))
        watching = await join(client, early["id"], None)
        for ws in (waiting, watching):
            assert (await next_frame(ws))["clock"] is None  # not started: no clock
        await claim(client, early["id"], 0, "Ann")  # the last seat: the game starts
        for ws in (waiting, watching):
            started = await next_frame(ws)
            assert started["type"] == "update" and started["moves"] == [], started
            assert started["clock"]["seat"] == 0 and started["clock"]["time_left"] > 55
        # A table without a clock says whose turn, and no time.
        free = await new_table(client, seats=[None, "greedy"], move_time=None)
        ws = await join(client, free["id"], await claim(client, free["id"]))
        welcome = await next_frame(ws)
        assert welcome["clock"] == {"seat": 0, "time_left": None, "move_time": None}

    serve(test)


def test_no_clock_is_sent_while_a_bot_is_to_move() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, seats=[None, "greedy", "greedy"], bot_delay=0.01)
        ws = await join(client, table["id"], await claim(client, table["id"]))
        frames = await until(ws, prompted)
        await ws.send_json({"type": "move", "n": frames[-1]["n"], "move": frames[-1]["legal"][0]})
        frames = await until(ws, prompted)
        bots = [f for f in frames if f["view"]["to_move"] != 0]
        assert bots and all(f["clock"] is None for f in bots)
        assert frames[-1]["clock"]["seat"] == 0

    serve(test)


# -- hints -------------------------------------------------------------------------------------


def test_a_hint_is_refused_at_a_table_without_hints_and_the_socket_stays_open() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, move_time=60)
        ws = await join(client, table["id"], await claim(client, table["id"]))
        prompt = (await until(ws, prompted))[-1]
        for _ in range(30):  # a fair question, asked often, is no flood of bad frames
            await ws.send_json({"type": "hint", "n": prompt["n"]})
            reply = await next_frame(ws)
            assert reply["type"] == "error" and reply["code"] == "forbidden", reply
            assert "this table gives no hints" in reply["error"]
        await ws.send_json({"type": "move", "n": prompt["n"], "move": prompt["legal"][0]})
        moved = await until(ws, lambda f: f["type"] == "update")
        assert moved[-1]["moves"][0]["seat"] == 0

    serve(test, **CHEAP)


def test_a_hint_is_refused_when_it_is_not_the_seats_turn_or_the_move_is_stale() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, seats=[None, None], move_time=60, hints=True)
        tokens = [await claim(client, table["id"], seat, f"P{seat}") for seat in (0, 1)]
        first, second = [await join(client, table["id"], token) for token in tokens]
        prompt = await next_frame(first)
        assert prompt["legal"] and prompt["view"]["to_move"] == 0
        await next_frame(second)
        await second.send_json({"type": "hint", "n": prompt["n"]})  # seat 1 at seat 0's turn
        reply = await next_frame(second)
        assert reply["type"] == "error" and reply["code"] == "conflict", reply
        assert "not yours" in reply["error"]
        for stale in [prompt["n"] + 1, "0", None]:
            await first.send_json({"type": "hint", "n": stale})
            reply = await next_frame(first)
            assert reply["type"] == "error" and reply["code"] == "conflict", reply
        watcher = await join(client, table["id"], None)
        await next_frame(watcher)
        await watcher.send_json({"type": "hint", "n": prompt["n"]})
        reply = await next_frame(watcher)
        assert reply["type"] == "error" and "spectators get no hints" in reply["error"]

    serve(test, **CHEAP)


def _cards_in(frame: Any) -> set[str]:
    text = json.dumps(frame)
    every = (protocol.card_text(card) for card in sg.CardSet.full())
    return {card for card in every if f'"{card}"' in text or f'"{card} ' in text}


def test_a_hints_moves_are_exactly_the_seats_legal_moves_and_only_that_seat_gets_it() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, move_time=60, hints=True)
        ws = await join(client, table["id"], await claim(client, table["id"]))
        watcher = await join(client, table["id"], None)
        await next_frame(watcher)
        for _ in range(3):  # three turns: a hint at each
            prompt = (await until(ws, prompted))[-1]
            await ws.send_json({"type": "hint", "n": prompt["n"]})
            advice = (await until(ws, lambda f: f["type"] == "hint"))[-1]
            assert advice["n"] == prompt["n"]
            assert sorted(m["move"] for m in advice["moves"]) == sorted(prompt["legal"])
            assert advice["best"] in prompt["legal"]
            assert all(0 <= m["loss"] <= 1 and m["visits"] >= 0 for m in advice["moves"])
            losses = [m["loss"] for m in advice["moves"]]
            assert losses == sorted(losses)
            assert advice["engine"] == "ismcts:iterations=300"
            # Only cards of the seat's own hand are named (its legal plays).
            assert _cards_in(advice) <= set(prompt["view"]["hand"])
            await ws.send_json({"type": "hint", "n": prompt["n"]})  # asked again: the same
            again = (await until(ws, lambda f: f["type"] == "hint"))[-1]
            assert again == advice
            await ws.send_json({"type": "move", "n": prompt["n"], "move": advice["best"]})
        await ws.close()
        await asyncio.sleep(0.1)
        while not watcher.closed:  # the spectator's frames so far: no hint among them
            try:
                message = await asyncio.wait_for(watcher.receive(), 0.2)
            except asyncio.TimeoutError:
                break
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            assert json.loads(message.data)["type"] != "hint"

    serve(test, **CHEAP)


def _deck(seed: int) -> list[str]:
    return list(sg.Game.new(sg.Rules.classic(), seed=seed).record()["start"]["deck"])


def _swapped(deck: list[str], i: int, j: int) -> list[str]:
    other = list(deck)
    other[i], other[j] = other[j], other[i]
    return other


class _Dealt:
    """Stands for :class:`~skitgubbe.Game` in the tables' module: deals the deck of a seed."""

    decks: ClassVar[dict[int, list[str]]] = {}

    @classmethod
    def new(cls, rules: sg.Rules, *, seed: int, dealer: int | None = None) -> sg.Game:
        return sg.Game.new(rules, deck=cls.decks[seed], dealer=dealer)


def _table_hint(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The hint a table dealt from ``_Dealt.decks[seed]`` gives seat 0 at its first turn, and
    the prompt it answers."""
    sent: list[dict[str, Any]] = []

    class Person:
        async def send(self, message: Any) -> None:
            sent.append(dict(message))

        async def close(self, reason: str) -> None:
            pass

    async def main() -> None:
        store = SQLiteStore(":memory:")
        config = TableConfig.from_json({"seats": [None, "greedy", "greedy"], "hints": True})
        seats: list[StoredSeat | None] = [StoredSeat(hash_token("t"), "Ann"), None, None]
        stored = StoredTable("t", config.to_json(), seed, seats)
        store.create(stored)
        table = Table(stored, config, store, advisor=Advisor("ismcts:iterations=400"))
        await table.attach(0, Person())
        table.start()
        for _ in range(500):
            await asyncio.sleep(0.01)
            if any(m.get("legal") for m in sent):
                break
        prompt = next(m for m in sent if m.get("legal"))
        table.ask_hint(0, prompt["n"])
        for _ in range(1000):
            await asyncio.sleep(0.01)
            if any(m["type"] == "hint" for m in sent):
                break
        await table.stop()
        store.close()

    asyncio.run(main())
    return next(m for m in sent if m["type"] == "hint"), next(m for m in sent if m.get("legal"))


def test_two_deals_the_seat_cannot_tell_apart_get_the_same_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    deck = _deck(11)
    hidden = _swapped(deck, 20, 33)  # two cards deep in the stock change places
    seen = _swapped(deck, 0, 33)  # a card of seat 0's hand changes places with one of them
    games = {name: sg.Game.new(sg.Rules.classic(), deck=d) for name, d in
             [("deck", deck), ("hidden", hidden), ("seen", seen)]}  # fmt: skip
    assert list(games["deck"].stock) != list(games["hidden"].stock)  # different deals...
    assert games["deck"].observation(0) == games["hidden"].observation(0)  # ...seat 0 cannot tell
    assert games["deck"].observation(0) != games["seen"].observation(0)
    # The hint itself: the same for both, for the same seed; not for another position.
    views = {name: game.observation(0) for name, game in games.items()}
    first = hint(views["deck"], "ismcts:iterations=400", 5)
    second = hint(views["hidden"], "ismcts:iterations=400", 5)
    del first["seconds"], second["seconds"]
    assert first == second
    assert hint_seed(views["deck"]) == hint_seed(views["hidden"])
    assert hint_seed(views["deck"]) != hint_seed(views["seen"])
    # Through a table: the server seeds and asks the search from the seat's view alone.
    monkeypatch.setattr(tables_module, "Game", _Dealt)
    _Dealt.decks = {1: deck, 2: hidden, 3: seen}
    results = {seed: _table_hint(seed) for seed in (1, 2, 3)}
    for advice, _ in results.values():
        del advice["seconds"]
    assert results[1][1]["view"] == results[2][1]["view"]
    assert results[1][0] == results[2][0]
    assert results[1][0] != results[3][0]  # a position the seat can tell apart: another hint


# -- reviews -----------------------------------------------------------------------------------


def test_a_review_is_refused_before_the_game_ends_and_given_after() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, move_time=60)
        ws = await join(client, table["id"], await claim(client, table["id"]))
        prompt = (await until(ws, prompted))[-1]
        during = await client.get(f"/api/tables/{table['id']}/review?seat=0")
        assert during.status == 409, await during.text()
        assert "not over" in (await during.json())["error"]
        assert prompt["result"] is None
        for query, status in [("?seat=x", 400), ("?seat=9", 409), ("", 400)]:
            response = await client.get(f"/api/tables/{table['id']}/review{query}")
            assert response.status == status, (query, await response.text())
        missing = await client.get("/api/tables/nosuchtable/review?seat=0")
        assert missing.status == 404
        # A game of bots, over at once: its review comes once worked out.
        over = await new_table(client, seats=["greedy", "easy", "easy"])
        for _ in range(600):
            summary = await (await client.get(f"/api/tables/{over['id']}")).json()
            if summary["status"] == "over":
                break
            await asyncio.sleep(0.05)
        bad_seat = await client.get(f"/api/tables/{over['id']}/review?seat=3")
        assert bad_seat.status == 400
        assert "seat must be a number 0 … 2" in (await bad_seat.json())["error"]
        for _ in range(600):
            response = await client.get(f"/api/tables/{over['id']}/review?seat=1")
            if response.status != 202:
                break
            working = await response.json()
            assert working["status"] == "working"
            await asyncio.sleep(0.05)
        assert response.status == 200, await response.text()
        review = await response.json()
        record = await (await client.get(f"/api/tables/{over['id']}/record")).json()
        assert [m["move"] for m in review["moves"]] == record["moves"]
        assert review["names"] == ["greedy", "easy 1", "easy 2"]
        assert review["svg"].startswith("<svg") and review["seat"] == 1
        mine = [m for m in review["moves"] if m["seat"] == 1]
        assert mine and all(m["label"] for m in mine)
        assert all("label" not in m for m in review["moves"] if m["seat"] != 1)
        assert set(review["costliest"]) <= {m["index"] for m in mine}
        again = await client.get(f"/api/tables/{over['id']}/review?seat=1")
        assert await again.json() == review  # worked out once, kept
        page = await client.get(f"/tables/{over['id']}/review?seat=1")
        assert page.status == 200 and "review.js" in await page.text()

    serve(test, **CHEAP)


def _bots_game(seed: int, players: int = 3) -> tuple[sg.Game, list[sg.Observation]]:
    """A game of greedy bots to its end, and seat 0's views at its real choices."""
    game = sg.Game.new(sg.Rules.classic(players), seed=seed)
    bot = sg.bots.GreedyBot()
    views = []
    while game.result is None:
        view = game.observation(game.to_move)
        if view.seat == 0 and len(view.legal_moves) > 1:
            views.append(view)
        game.play(bot.choose(view))
    return game, views


def test_a_hint_and_the_review_agree_on_the_engines_choice_at_a_position() -> None:
    engine = "ismcts:iterations=250"
    game, views = _bots_game(12)
    reviewed = review(game.record(), 0, engine=engine)
    compared = 0
    for view in views[:: max(1, len(views) // 6)]:
        advice = hint(view, engine, hint_seed(view))
        entry = reviewed["moves"][advice["n"]]
        assert entry["seat"] == 0 and entry["move"] == str(game.moves[advice["n"]])
        assert entry["best_move"] == advice["best"]
        assert entry["best"] == str(sg.Move.parse(advice["best"]))
        by_move = {m["move"]: m for m in advice["moves"]}
        played = by_move[protocol.move_text(game.moves[advice["n"]])]
        assert (entry["loss"], entry["error"]) == (played["loss"], played["error"])
        best = by_move[advice["best"]]
        assert (entry["best_loss"], entry["best_error"]) == (best["loss"], best["error"])
        compared += 1
    assert compared >= 4
    # The hint's seed matters: a hint seeded otherwise weighs the moves otherwise.
    assert any(
        hint(view, engine, hint_seed(view) + 1)["moves"]
        != hint(view, engine, hint_seed(view))["moves"]
        for view in views[:3]
    )


def test_a_hint_says_why_exactly_when_its_choice_is_not_the_lowest_estimate() -> None:
    _, views = _bots_game(3)
    why = 0
    for view in views:
        advice = hint(view, "ismcts:iterations=1000", hint_seed(view))
        chosen = next(m for m in advice["moves"] if m["move"] == advice["best"])
        lowest = advice["moves"][0]
        assert (advice["why"] is None) == (chosen["loss"] <= lowest["loss"])
        if advice["why"] is not None:
            why += 1
            assert f"chose {chosen['text']} ({100 * chosen['loss']:.1f} % ±" in advice["why"]
            assert f"; {lowest['text']} has a lower estimate" in advice["why"]
            assert "simulated most" in advice["why"]
    assert why >= 1


def _card_marks(card: sg.Card) -> list[str]:
    """How an SVG drawing names a card face up."""
    return [f"data-card='{card.rank.label}{card.suit.letter}'", f"<title>{card}</title>"]


def test_a_review_gives_every_chance_its_error_and_says_why_and_shows_the_seats_view() -> None:
    engine = "ismcts:iterations=1000"
    game, _ = _bots_game(5)
    seat = 0
    data = review(game.record(), seat, engine=engine)
    assert data["engine"] == engine and data["iterations"] == 1000
    mine = [m for m in data["moves"] if m["seat"] == seat and m["label"] != "forced"]
    assert mine
    for entry in mine:
        for key in ("loss", "error", "best_loss", "best_error"):
            assert 0 < entry[key] < 1, (key, entry)
        best_higher = entry["best_loss"] > entry["loss"]
        if best_higher:  # the move played looked better than the choice: said why
            assert entry["why"] is not None and f"; {entry['move']} has a lower" in entry["why"]
    assert any(m["why"] for m in mine)
    assert all(
        m["why"] is None for m in data["moves"] if m["seat"] == seat and m["label"] == "forced"
    )
    # The views: at the costliest moves only, each the seat's own, before the move.
    assert data["costliest"]
    assert {m["index"] for m in data["moves"] if "view" in m} == set(data["costliest"])
    replay = sg.Game.from_record({**game.record(), "moves": [], "result": None})
    for index, move in enumerate(game.moves):
        if index in data["costliest"]:
            picture = data["moves"][index]["view"]
            assert picture.startswith("<svg") and f"move {index} " in picture
            for card in replay.hands[seat]:  # the seat's own hand, face up
                assert all(mark in picture for mark in _card_marks(card)), card
            for play in replay.table[-8:]:  # the table's last plays, face up: public
                for card in play.cards:
                    assert all(mark in picture for mark in _card_marks(card)), card
            for other in range(replay.players):
                if other != seat:  # another seat's hand: never face up
                    for card in replay.hands[other]:
                        assert not any(mark in picture for mark in _card_marks(card)), card
        replay.play(move)


# -- the pages ---------------------------------------------------------------------------------


def test_every_resource_the_pages_name_is_served_and_the_icon_too() -> None:
    async def test(client: TestClient) -> None:
        pages = ["/", "/table?id=x", "/tables/x/review?seat=0"]
        named: set[str] = set()
        for page in pages:
            response = await client.get(page)
            assert response.status == 200, page
            html = await response.text()
            found = set(re.findall(r'(?:src|href)="(/[^"]*)"', html))
            assert any(url.endswith(".js") for url in found), page
            assert "/static/icon.svg" in found, page  # no page leaves the icon to /favicon.ico
            named |= found
        named |= {"/favicon.ico"}  # which browsers ask for all the same
        for url in sorted(named - {"/"}):
            response = await client.get(url)
            assert response.status == 200, url
        icon = await client.get("/favicon.ico")
        assert icon.content_type == "image/svg+xml" and (await icon.text()).startswith("<svg")
        assert (await client.get("/static/server.db")).status == 404

    serve(test)
