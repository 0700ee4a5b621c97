"""The asyncio runner: human and bot seats, timeouts, disconnects, stand-ins, updates,
and the example HTTP server driven over real loopback HTTP."""

from __future__ import annotations

import asyncio
import http.client
import importlib.util
import json
import re
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pytest

import skitgubbe as sg

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def run(coro: Awaitable[T], limit: float = 10.0) -> T:
    """Run ``coro`` in a fresh event loop, never longer than ``limit`` seconds."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, limit)

    return asyncio.run(bounded())


class QueueHuman:
    """A person behind a connection: questions go out on ``asked``, answers come in on
    ``answers`` (both queues, as a websocket handler would use them)."""

    def __init__(self) -> None:
        self.asked: asyncio.Queue[sg.Observation] = asyncio.Queue()
        self.answers: asyncio.Queue[object] = asyncio.Queue()
        self.seen: list[sg.Observation] = []
        self.started = 0
        self.ended: list[sg.GameResult] = []
        self.cancelled = 0

    async def choose(self, observation: sg.Observation) -> sg.Move:
        self.seen.append(observation)
        self.asked.put_nowait(observation)
        try:
            answer = await self.answers.get()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        if isinstance(answer, BaseException):
            raise answer
        return answer  # type: ignore[return-value]

    async def game_started(self, observation: sg.Observation) -> None:
        self.started += 1

    async def game_ended(self, observation: sg.Observation, result: sg.GameResult) -> None:
        self.ended.append(result)


async def answer_with(
    human: QueueHuman, pick: Callable[[sg.Observation], object] = lambda o: o.legal_moves[0]
) -> None:
    """The person's side of the connection: answer every question with ``pick``."""
    while True:
        observation = await human.asked.get()
        human.answers.put_nowait(pick(observation))


async def with_person(human: QueueHuman, runner: Awaitable[T]) -> T:
    person = asyncio.ensure_future(answer_with(human))
    try:
        return await runner
    finally:
        person.cancel()


class FirstMove:
    """The synchronous twin of a person who always plays the first legal move."""

    def choose(self, observation: sg.Observation) -> sg.Move:
        return observation.legal_moves[0]


class Silent:
    """A person who never answers."""

    def __init__(self) -> None:
        self.asked: list[sg.Observation] = []
        self.cancelled = 0
        self.ended = 0

    async def choose(self, observation: sg.Observation) -> sg.Move:
        self.asked.append(observation)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        raise AssertionError("unreachable")

    async def game_ended(self, observation: sg.Observation, result: sg.GameResult) -> None:
        self.ended += 1


def bots_for(players: int) -> list[sg.Player]:
    return [
        sg.bots.GreedyBot() if seat % 2 else sg.bots.RandomBot(seed=seat) for seat in range(players)
    ]


# -- mixed seats ------------------------------------------------------------------------------


def test_a_human_seat_among_bots_plays_the_game_a_sync_player_would() -> None:
    human = QueueHuman()
    table: list[Any] = bots_for(3)
    table[1] = human
    game = sg.Game.new(seed=21)
    result = run(with_person(human, sg.play_game_async(table, game=game)))

    twin = sg.Game.new(seed=21)
    sync_table = bots_for(3)
    sync_table[1] = FirstMove()
    assert result == sg.play_game(sync_table, game=twin)
    assert game.moves == twin.moves
    assert human.seen and all(o.seat == 1 and o.my_turn and o.legal_moves for o in human.seen)
    assert human.started == 1 and human.ended == [result]


@pytest.mark.parametrize("seed", range(4))
def test_bots_only_the_async_runner_matches_play_game(seed: int) -> None:
    rules = sg.Rules.classic(players=4)
    result = run(sg.play_game_async(bots_for(4), rules, seed=seed))
    assert result == sg.play_game(bots_for(4), rules, seed=seed)


def test_async_bot_in_a_thread_leaves_the_loop_free() -> None:
    class Slow:
        def __init__(self) -> None:
            self.threads: list[int] = []

        def choose(self, observation: sg.Observation) -> sg.Move:
            self.threads.append(threading.get_ident())
            time.sleep(0.2)
            return observation.legal_moves[0]

    observation = sg.Game.new(seed=2).observation(0)

    async def main() -> tuple[sg.Move, int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticking = asyncio.ensure_future(ticker())
        move = await sg.AsyncBot(slow, in_thread=True).choose(observation)
        ticking.cancel()
        return move, ticks

    slow = Slow()
    move, ticks = run(main())
    assert move == observation.legal_moves[0]
    assert ticks >= 5  # the loop ran while the bot slept in its thread
    assert slow.threads != [threading.get_ident()]
    run(sg.AsyncBot(slow).choose(observation))
    assert slow.threads[-1] == threading.get_ident()  # in the loop by default


def test_hooks_are_awaited_or_called_and_passed_on_by_async_bot() -> None:
    calls: list[str] = []

    class Listening(sg.bots.GreedyBot):
        def game_started(self, observation: sg.Observation) -> None:
            calls.append(f"started {observation.seat}")

        def game_ended(self, observation: sg.Observation, result: sg.GameResult) -> None:
            calls.append(f"ended {observation.seat}")

    class AsyncListening:
        async def choose(self, observation: sg.Observation) -> sg.Move:
            return sg.bots.GreedyBot().choose(observation)

        async def game_started(self, observation: sg.Observation) -> None:
            calls.append(f"async started {observation.seat}")

        async def game_ended(self, observation: sg.Observation, result: sg.GameResult) -> None:
            calls.append(f"async ended {observation.seat}")

    table = [Listening(), AsyncListening(), sg.AsyncBot(Listening(), in_thread=True)]
    run(sg.play_game_async(table, seed=4))
    assert calls == [
        "started 0",
        "async started 1",
        "started 2",
        "ended 0",
        "async ended 1",
        "ended 2",
    ]


# -- timeouts ------------------------------------------------------------------------------------


def test_a_silent_seat_times_out_with_the_game_at_its_turn_and_the_game_resumes() -> None:
    silent = Silent()
    game = sg.Game.new(seed=8)
    table: list[Any] = [sg.bots.GreedyBot(), silent, sg.bots.GreedyBot()]
    with pytest.raises(sg.PlayerTimeoutError) as caught:
        run(sg.play_game_async(table, game=game, move_time=[None, 0.05, None]))
    error = caught.value
    assert isinstance(error, sg.PlayerError)
    assert (error.seat, error.timeout) == (1, 0.05)
    assert str(error) == "seat 1 (Silent) did not answer within 0.05 s"
    assert silent.cancelled == 1  # its choose was cancelled, not left dangling
    asked = silent.asked[-1]
    assert game.to_move == 1 and game.moves_played == asked.moves_played
    assert game.observation(1) == asked  # nothing was played for it
    assert silent.ended == 0

    # The person reconnects: the same call on the same game plays it to the end.
    human = QueueHuman()
    table[1] = human
    result = run(with_person(human, sg.play_game_async(table, game=game)))
    assert human.seen[0] == asked
    assert game.result == result
    replayed = sg.Game.from_record(game.record())
    assert (
        replayed.result == result
        and replayed.moves[: asked.moves_played] == game.moves[: asked.moves_played]
    )


def test_a_timeout_for_every_seat_and_a_resume_that_times_out_again() -> None:
    game = sg.Game.new(seed=8)
    silent = Silent()
    table: list[Any] = [sg.bots.GreedyBot(), silent, sg.bots.GreedyBot()]
    for _ in range(2):
        with pytest.raises(sg.PlayerTimeoutError):
            run(sg.play_game_async(table, game=game, move_time=0.02))
        assert game.to_move == 1
    assert silent.asked[0] == silent.asked[1]


def test_on_timeout_bot_lets_the_stand_in_play_that_move_and_asks_the_seat_again() -> None:
    silent = Silent()
    updates: list[sg.TableUpdate] = []
    table: list[Any] = [sg.bots.GreedyBot(), silent, sg.bots.GreedyBot()]
    result = run(
        sg.play_game_async(
            table,
            seed=6,
            move_time=0.01,
            on_timeout="bot",
            fallback=sg.bots.GreedyBot(),
            on_event=updates.append,
        )
    )
    seat_moves = [u for u in updates if u.viewer is None and u.seat == 1]
    assert len(silent.asked) == len(seat_moves) > 1  # asked at every turn
    assert {u.stand_in for u in seat_moves} == {"timeout"}
    assert {u.stand_in for u in updates if u.seat in (0, 2)} == {None}
    assert silent.ended == 1  # a slow seat is still at the table
    # The stand-in is the greedy bot: the same game as greedy in that seat.
    assert result == sg.play_game([sg.bots.GreedyBot() for _ in range(3)], seed=6)


def test_the_fallback_can_be_a_bot_spec() -> None:
    result = run(
        sg.play_game_async(
            [Silent(), sg.bots.GreedyBot()],
            seed=3,
            move_time=0.01,
            on_timeout="bot",
            fallback="random",
        )
    )
    assert result.loser in (0, 1) or result.truncated


# -- disconnects ---------------------------------------------------------------------------------


class DropsAfter(QueueHuman):
    """Answers ``answers`` moves with the first legal move, then its connection drops."""

    def __init__(self, answers: int) -> None:
        super().__init__()
        self.left = answers

    async def choose(self, observation: sg.Observation) -> sg.Move:
        self.seen.append(observation)
        if self.left == 0:
            raise sg.DisconnectedError("the websocket closed")
        self.left -= 1
        await asyncio.sleep(0)
        return observation.legal_moves[0]


def test_a_disconnect_raises_with_the_game_at_the_seats_turn_and_the_game_resumes() -> None:
    human = DropsAfter(2)
    game = sg.Game.new(seed=12)
    table: list[Any] = [sg.bots.RandomBot(seed=1), sg.bots.GreedyBot(), human]
    with pytest.raises(sg.PlayerDisconnectedError) as caught:
        run(sg.play_game_async(table, game=game))
    error = caught.value
    assert error.seat == 2 and isinstance(error.cause, sg.DisconnectedError)
    assert "seat 2 (DropsAfter) disconnected in choose" in str(error)
    assert len(human.seen) == 3
    assert game.to_move == 2 and game.observation(2) == human.seen[-1]
    assert human.ended == []

    back = QueueHuman()
    table[2] = back
    result = run(with_person(back, sg.play_game_async(table, game=game)))
    assert back.seen[0] == human.seen[-1] and back.started == 1
    assert game.result == result and back.ended == [result]


@pytest.mark.parametrize("error", [ConnectionResetError("reset"), BrokenPipeError()])
def test_any_connection_error_is_a_disconnect(error: BaseException) -> None:
    human = QueueHuman()
    human.answers.put_nowait(error)
    game = sg.Game.new(seed=1)
    with pytest.raises(sg.PlayerDisconnectedError) as caught:
        run(sg.play_game_async([human, FirstMove(), FirstMove()], game=game))
    assert caught.value.cause is error and game.moves_played == 0


def test_a_choose_that_ends_cancelled_is_a_disconnect() -> None:
    class Dropped:
        """Awaits a message future that its connection handler cancels when the socket dies."""

        async def choose(self, observation: sg.Observation) -> sg.Move:
            message: asyncio.Future[sg.Move] = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_later(0.01, message.cancel)
            return await message

    game = sg.Game.new(seed=2)
    with pytest.raises(sg.PlayerDisconnectedError) as caught:
        run(sg.play_game_async([FirstMove(), Dropped(), FirstMove()], game=game))
    assert caught.value.seat == 1
    assert isinstance(caught.value.cause, asyncio.CancelledError)
    assert game.to_move == 1


def test_on_disconnect_bot_hands_the_seat_to_the_stand_in_for_the_rest_of_the_game() -> None:
    human = DropsAfter(3)
    updates: list[sg.TableUpdate] = []
    table: list[Any] = [sg.bots.GreedyBot(), human, sg.bots.GreedyBot()]
    result = run(sg.play_game_async(table, seed=6, on_disconnect="bot", on_event=updates.append))
    assert len(human.seen) == 4  # three answers, then the drop; never asked again
    assert human.ended == []  # a departed seat is not told the result
    seat_moves = [u for u in updates if u.viewer is None and u.seat == 1]
    assert [u.stand_in for u in seat_moves[:3]] == [None, None, None]
    assert {u.stand_in for u in seat_moves[3:]} == {"disconnect"}
    assert result.moves_played == updates[-1].moves_played


def test_on_disconnect_bot_covers_a_drop_in_game_started() -> None:
    class GoneAtStart(Silent):
        async def game_started(self, observation: sg.Observation) -> None:
            raise sg.DisconnectedError("never arrived")

    absent = GoneAtStart()
    result = run(sg.play_game_async([absent, FirstMove()], seed=1, on_disconnect="bot"))
    assert absent.asked == [] and absent.ended == 0 and result.moves_played > 0
    with pytest.raises(sg.PlayerDisconnectedError, match="game_started"):
        run(sg.play_game_async([absent, FirstMove()], seed=1))


def test_cancelling_the_runner_cancels_the_waiting_seat_and_keeps_the_game() -> None:
    human = QueueHuman()
    game = sg.Game.new(seed=9)
    table: list[Any] = [sg.bots.GreedyBot(), human, sg.bots.GreedyBot()]

    async def main() -> None:
        runner = asyncio.ensure_future(sg.play_game_async(table, game=game))
        await human.asked.get()
        runner.cancel()
        with pytest.raises(asyncio.CancelledError):
            await runner

    run(main())
    assert human.cancelled == 1 and game.to_move == 1
    assert game.observation(1) == human.seen[-1]
    back = table[1] = QueueHuman()  # a new connection (its queues belong to the new loop)
    result = run(with_person(back, sg.play_game_async(table, game=game)))
    assert back.seen[0] == human.seen[-1] and game.result == result


# -- other player faults -------------------------------------------------------------------------


@pytest.mark.parametrize("answer", [sg.Move.pick_up(), "7h", None])
def test_an_illegal_answer_is_a_player_error_and_the_game_is_unchanged(answer: object) -> None:
    human = QueueHuman()
    human.answers.put_nowait(answer)
    game = sg.Game.new(seed=2)
    with pytest.raises(sg.PlayerError) as caught:
        run(sg.play_game_async([human, FirstMove(), FirstMove()], game=game))
    error = caught.value
    assert type(error) is sg.PlayerError and error.seat == 0 and error.answer == answer
    assert "legal moves: " in str(error)
    assert game.moves_played == 0 and game.observation(0) == human.seen[0]


def test_a_player_that_raises_is_a_player_error_not_a_disconnect() -> None:
    human = QueueHuman()
    human.answers.put_nowait(ValueError("bad input parser"))
    with pytest.raises(sg.PlayerError) as caught:
        run(sg.play_game_async([human, FirstMove()], seed=1, on_disconnect="bot"))
    assert type(caught.value) is sg.PlayerError
    assert isinstance(caught.value.cause, ValueError)
    assert str(caught.value) == "seat 0 (QueueHuman) raised ValueError: bad input parser in choose"


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"move_time": 0}, sg.ArgumentError, "positive, finite number"),
        ({"move_time": float("nan")}, sg.ArgumentError, "positive, finite number"),
        ({"move_time": [1.0, None, -2]}, sg.ArgumentError, "positive, finite number"),
        ({"move_time": "1"}, sg.ArgumentTypeError, "positive, finite number"),
        ({"move_time": True}, sg.ArgumentTypeError, "positive, finite number"),
        ({"move_time": [1.0, 2.0]}, sg.ArgumentError, "one limit per seat"),
        ({"on_timeout": "wait"}, sg.ArgumentError, "on_timeout must be"),
        ({"on_disconnect": "bot", "fallback": "nobody"}, sg.ArgumentError, "no bot named"),
        ({"on_timeout": "bot", "fallback": 42}, sg.ArgumentTypeError, "fallback must be"),
        ({"rules": sg.Rules.classic(players=4)}, sg.ArgumentError, "4 players are needed"),
        ({"seed": 1, "game": sg.Game.new(seed=1)}, sg.ArgumentError, "not both"),
    ],
)
def test_bad_arguments_are_refused_before_any_move(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        run(sg.play_game_async([Silent(), Silent(), Silent()], **kwargs))


def test_async_bot_needs_a_player() -> None:
    with pytest.raises(TypeError, match=r"AsyncBot needs a Player with choose\(\)"):
        sg.AsyncBot("greedy")  # type: ignore[arg-type]


def test_an_answer_that_merely_equals_a_legal_move_is_refused() -> None:
    class Impostor:
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    human = QueueHuman()
    impostor = Impostor()
    human.answers.put_nowait(impostor)
    game = sg.Game.new(seed=3)
    with pytest.raises(sg.PlayerError, match="not a Move") as caught:
        run(sg.play_game_async([human, FirstMove(), FirstMove()], game=game))
    assert caught.value.answer is impostor and game.moves_played == 0


# -- updates -------------------------------------------------------------------------------------


def private_cards_of_others(events: tuple[sg.Event, ...], viewer: int | None) -> list[sg.Event]:
    return [e for e in events if e.kind.private and e.seat != viewer and e.cards]


@pytest.mark.parametrize("rules", [sg.Rules.classic(players=4), sg.Rules.modern(players=3)])
def test_each_update_holds_only_what_its_viewer_may_see(rules: sg.Rules) -> None:
    updates: list[sg.TableUpdate] = []

    async def on_event(update: sg.TableUpdate) -> None:
        await asyncio.sleep(0)
        updates.append(update)

    game = sg.Game.new(rules, seed=17)
    human = QueueHuman()
    table: list[Any] = bots_for(rules.players)
    table[0] = human
    run(with_person(human, sg.play_game_async(table, game=game, on_event=on_event)))

    viewers = [*range(rules.players), None]
    assert len(updates) == (game.moves_played + 1) * len(viewers)
    assert [u.viewer for u in updates] == viewers * (game.moves_played + 1)
    for viewer in viewers:
        mine = [u for u in updates if u.viewer == viewer]
        events = tuple(e for u in mine for e in u.events)
        assert private_cards_of_others(events, viewer) == []
        if viewer is None:
            assert all(u.observation is None for u in mine)
            assert events == tuple(e.redacted() for e in game.history)
        else:
            assert events == tuple(game.observation(viewer).history)
            so_far = 0
            for update in mine:
                assert update.observation is not None and update.observation.seat == viewer
                so_far += len(update.events)
                assert len(update.observation.history) == so_far
    moves = [u.move for u in updates if u.viewer is None][1:]
    assert tuple(moves) == game.moves
    assert updates[-1].result == game.result and updates[-1].to_move is None


def test_a_resumed_game_opens_with_each_viewers_history_so_far() -> None:
    game = sg.Game.new(seed=8)
    table: list[Any] = [sg.bots.GreedyBot(), Silent(), sg.bots.GreedyBot()]
    with pytest.raises(sg.PlayerTimeoutError):
        run(sg.play_game_async(table, game=game, move_time=0.01))
    updates: list[sg.TableUpdate] = []
    table[1] = FirstMove()
    run(sg.play_game_async(table, game=game, on_event=updates.append))
    history = tuple(updates[1].events)
    assert updates[1].viewer == 1 and updates[1].move is None
    assert len(history) > 3 and history == tuple(updates[1].observation.history)  # type: ignore[union-attr]
    assert private_cards_of_others(updates[3].events, None) == []


def test_an_update_callback_that_fails_propagates_after_the_move() -> None:
    def on_event(update: sg.TableUpdate) -> None:
        if update.move is not None:
            raise RuntimeError("push failed")

    game = sg.Game.new(seed=1)
    with pytest.raises(RuntimeError, match="push failed"):
        run(sg.play_game_async([FirstMove()] * 3, game=game, on_event=on_event))
    assert game.moves_played == 1


# -- the example server over loopback HTTP -----------------------------------------------------


def load_example() -> ModuleType:
    path = ROOT / "examples" / "async_server.py"
    spec = importlib.util.spec_from_file_location("async_server_example", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fetch(port: int, method: str, path: str, body: str | None = None) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request(method, path, body=None if body is None else body.encode())
        response = connection.getresponse()
        data = response.read().decode()
        kind = response.getheader("Content-Type", "")
        return response.status, json.loads(data) if kind.startswith("application/json") else data
    finally:
        connection.close()


def test_the_example_server_plays_a_whole_game_over_http() -> None:
    example = load_example()

    async def main() -> tuple[sg.GameResult, dict[str, Any], list[tuple[int, Any]]]:
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        server = asyncio.ensure_future(
            example.serve(0, seed=31, players=3, seat=1, quiet=True, ready=ready.set_result)
        )
        port = await ready

        async def call(method: str, path: str, body: str | None = None) -> tuple[int, Any]:
            return await asyncio.to_thread(fetch, port, method, path, body)

        checks = [
            await call("GET", "/nowhere"),
            await call("GET", "/move"),
            await call("POST", "/move", "not a move"),
        ]
        status, state = await call("GET", "/state")
        while not state["your_turn"]:
            await asyncio.sleep(0.005)
            status, state = await call("GET", "/state")
        wrong = next(c for c in sg.CardSet.full() if str(c) not in state["hand"])
        checks.append(await call("POST", "/move", str(wrong)))
        while not state["over"]:
            assert status == 200 and state["your_turn"], state
            status, state = await call("POST", "/move", state["legal_moves"][-1])
        return await server, state, checks

    result, final, checks = run(main(), limit=15)
    (missing, method, nonsense, illegal) = checks
    assert missing[0] == 404 and method[0] == 405
    assert nonsense[0] == 400 and "not a move" in nonsense[1]["error"]
    assert illegal[0] == 400 and "does not hold" in illegal[1]["error"]
    assert illegal[1]["legal_moves"]
    assert final["over"] and final["result"] == result.to_dict()
    assert final["seat"] == 1 and final["legal_moves"] == []
    for line in final["history"]:  # only what seat 1 may see
        match = re.match(r"seat (\d) (draws|is dealt) (.*)", line)
        if match and match[1] != "1":
            assert re.fullmatch(r"\d+ cards?|the last stock card and lays it face down", match[3])


def test_the_example_seat_refuses_a_move_out_of_turn() -> None:
    example = load_example()

    async def main() -> tuple[int, dict[str, Any]]:
        game = sg.Game.new(seed=1)  # seat 0 to move
        seat = example.HttpSeat(1, game)
        result: tuple[int, dict[str, Any]] = await seat.post_move("7h")
        return result

    status, body = run(main())
    assert status == 409 and body["error"] == "not your turn: seat 0 is to move"
