"""The table loop: the Referee's steps, how it checks, times and records answers, and its errors."""

from __future__ import annotations

import time
from typing import Any

import pytest

import skitgubbe as sg


class First:
    """Plays the first legal move."""

    def choose(self, observation: sg.Observation) -> sg.Move:
        return observation.legal_moves[0]


def position(game: sg.Game) -> tuple[Any, ...]:
    return game.moves, game.to_move, tuple(game.observation(s) for s in range(game.players))


def test_driving_the_steps_plays_the_game_a_plain_loop_plays() -> None:
    for seed in range(5):
        bots = [sg.bots.RandomBot(seed=seed * 10 + s) for s in range(3)]
        referee = sg.Referee(bots, seed=seed)
        assert referee.start() == ()  # random bots have no hooks
        while (turn := referee.turn()) is not None:
            assert turn.seat == referee.to_move and turn.player is bots[turn.seat]
            assert turn.observation == referee.game.observation(turn.seat)
            referee.accept(turn, turn())
        plain = sg.Game.new(seed=seed)
        again = [sg.bots.RandomBot(seed=seed * 10 + s) for s in range(3)]
        while (seat := plain.to_move) is not None:
            plain.play(again[seat].choose(plain.observation(seat)))
        assert referee.game.moves == plain.moves and referee.result == plain.result


def test_play_game_is_the_referee_run() -> None:
    rules = sg.Rules.modern(players=4)
    ran = sg.Referee([sg.bots.GreedyBot()] * 4, rules, seed=8).run()
    assert ran == sg.play_game([sg.bots.GreedyBot()] * 4, rules, seed=8)


def test_accept_returns_the_events_and_records_a_decision() -> None:
    referee = sg.Referee([First(), First(), First()], seed=2)
    turn = referee.turn()
    assert turn is not None
    move = turn.observation.legal_moves[0]
    twin = sg.Game.new(seed=2)
    assert referee.accept(turn, move) == twin.play(move)
    (decision,) = referee.decisions
    assert (decision.seat, decision.move, decision.stand_in) == (0, move, None)
    assert 0 <= decision.seconds < 1


@pytest.mark.slow
def test_a_decision_is_timed_from_the_opening_of_the_turn() -> None:
    class Slow(First):
        def choose(self, observation: sg.Observation) -> sg.Move:
            time.sleep(0.05)
            return super().choose(observation)

    referee = sg.Referee([Slow(), First()], seed=1)
    referee.run()
    slow = [d.seconds for d in referee.decisions if d.seat == 0]
    fast = [d.seconds for d in referee.decisions if d.seat == 1]
    assert slow and min(slow) >= 0.05
    assert fast and max(fast) < 0.05


class EqualToEverything:
    """An answer that claims to equal any move (and hashes like the first legal one)."""

    def __init__(self, move: sg.Move) -> None:
        self.move = move

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash(self.move)


class BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@pytest.mark.parametrize(
    ("make_answer", "shown"),
    [
        (lambda o: None, "None: not a Move"),
        (lambda o: "flip", "'flip': not a Move"),
        (lambda o: o.legal_moves[0].code, "not a Move"),
        (lambda o: EqualToEverything(o.legal_moves[0]), "not a Move"),
        (lambda o: BadRepr(), "<BadRepr object (repr() failed)>: not a Move"),
        (lambda o: sg.Move.pick_up(), "Move.pick_up(): illegal move ({reason})"),
    ],
)
def test_anything_but_a_legal_move_is_refused_and_changes_nothing(
    make_answer: Any, shown: str
) -> None:
    referee = sg.Referee([First(), First(), First()], seed=4)
    game = referee.game
    before = position(game)
    turn = referee.turn()
    assert turn is not None
    answer = make_answer(turn.observation)
    with pytest.raises(sg.PlayerError) as caught:
        referee.accept(turn, answer)
    error = caught.value
    assert type(error) is sg.PlayerError
    assert (error.seat, error.answer, error.cause) == (0, answer, None)
    legal = ", ".join(str(m) for m in game.legal_moves)
    if isinstance(answer, sg.Move):  # the reason is the game's own
        with pytest.raises(sg.IllegalMoveError) as illegal:
            game.copy().play(answer)
        shown = shown.format(reason=illegal.value.reason)
    assert str(error).startswith("seat 0 (First) answered ")
    assert str(error).endswith(f"{shown}; legal moves: {legal}")
    assert position(game) == before and referee.decisions == ()
    referee.accept(turn, turn())  # the same turn can be answered again
    assert game.moves_played == 1


def test_a_stand_ins_answer_is_checked_and_recorded_in_its_name() -> None:
    referee = sg.Referee([First(), First()], seed=3)
    turn = referee.turn()
    assert turn is not None
    greedy = sg.bots.GreedyBot()
    stand_in = turn.instead(greedy, "timeout")
    assert (stand_in.seat, stand_in.player, stand_in.stand_in) == (0, greedy, "timeout")
    assert (turn.player, turn.stand_in) != (greedy, "timeout")  # the turn itself is unchanged
    with pytest.raises(sg.PlayerError, match=r"^seat 0 \(GreedyBot\) answered 42"):
        referee.accept(stand_in, 42)
    referee.accept(stand_in, stand_in())
    assert referee.decisions[0].stand_in == "timeout"


def test_only_the_open_turn_can_be_answered() -> None:
    referee = sg.Referee([First(), First(), First()], seed=6)
    turn = referee.turn()
    assert turn is not None
    referee.accept(turn, turn())
    with pytest.raises(sg.ArgumentError, match="choose for seat 0 is not the turn to answer"):
        referee.accept(turn, turn.observation.legal_moves[-1])
    (hook,) = sg.Referee([sg.AsyncBot(First()), First()], seed=1).start()
    with pytest.raises(sg.ArgumentError, match="game_started for seat 0"):
        referee.accept(hook, None)  # type: ignore[arg-type]


def test_turn_and_finish_follow_the_end_of_the_game() -> None:
    referee = sg.Referee([First(), First()], seed=5)
    with pytest.raises(sg.SkitgubbeError, match="the game is not over: seat 0 is to move"):
        referee.finish()
    result = referee.run()
    assert referee.turn() is None and referee.to_move is None and referee.result == result
    assert referee.finish() == ()  # First has no hooks


class Hooked(First):
    def __init__(self, fail: str | None = None) -> None:
        self.fail = fail
        self.told: list[str] = []

    def game_started(self, observation: sg.Observation) -> None:
        self.told.append("started")
        if self.fail == "started":
            raise KeyError("late")

    def game_ended(self, observation: sg.Observation, result: sg.GameResult) -> None:
        self.told.append("ended")
        if self.fail == "ended":
            raise LookupError(f"seat {observation.seat}")


def test_hooks_are_called_with_each_seats_view() -> None:
    lineup = [Hooked(), First(), Hooked()]
    referee = sg.Referee(lineup, seed=1)
    calls = referee.start()
    assert [(c.seat, c.method, c.observation.seat) for c in calls] == [
        (0, "game_started", 0),
        (2, "game_started", 2),
    ]
    result = referee.run()
    ended = referee.finish()
    assert [(c.seat, c.args[1]) for c in ended] == [(0, result), (2, result)]
    assert lineup[0].told == lineup[2].told == ["started", "ended"]  # type: ignore[attr-defined]


def test_a_hook_that_raises_is_a_player_error_before_any_move() -> None:
    referee = sg.Referee([First(), Hooked("started")], seed=2)
    with pytest.raises(sg.PlayerError) as caught:
        referee.run()
    assert str(caught.value) == "seat 1 (Hooked) raised KeyError: 'late' in game_started"
    assert caught.value.seat == 1 and isinstance(caught.value.cause, KeyError)
    assert referee.game.moves_played == 0


def test_every_player_hears_the_end_and_the_first_failure_is_raised() -> None:
    lineup = [Hooked("ended"), Hooked(), Hooked("ended")]
    referee = sg.Referee(lineup, seed=3)
    with pytest.raises(sg.PlayerError) as caught:
        referee.run()
    assert caught.value.seat == 0 and str(caught.value.cause) == "seat 0"
    assert [p.told for p in lineup] == [["started", "ended"]] * 3
    assert referee.result is not None


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("cannot print")


def test_a_player_exception_that_cannot_be_printed_is_still_reported() -> None:
    class Broken(First):
        def choose(self, observation: sg.Observation) -> sg.Move:
            raise UnprintableError

    referee = sg.Referee([First(), Broken(), First()], seed=7)
    with pytest.raises(sg.PlayerError) as caught:
        referee.run()
    error = caught.value
    assert str(error) == (
        "seat 1 (Broken) raised UnprintableError: <exception str() failed> in choose"
    )
    assert isinstance(error.cause, UnprintableError) and error.__cause__ is error.cause
    assert referee.game.to_move == 1


def test_the_errors_a_driver_builds_name_seat_player_and_cause() -> None:
    referee = sg.Referee([First(), First()], seed=1)
    turn = referee.turn()
    assert turn is not None
    timed_out = turn.timed_out(0.5)
    assert type(timed_out) is sg.PlayerTimeoutError
    assert (str(timed_out), timed_out.seat, timed_out.timeout) == (
        "seat 0 (First) did not answer within 0.5 s",
        0,
        0.5,
    )
    gone = turn.instead(sg.bots.GreedyBot(), "disconnect").disconnected(ConnectionResetError())
    assert type(gone) is sg.PlayerDisconnectedError
    assert str(gone) == "seat 0 (GreedyBot) disconnected in choose: ConnectionResetError"
    failed = turn.instead(sg.bots.GreedyBot(), "timeout").failed(ValueError("x"))
    assert str(failed) == "seat 0 (GreedyBot) raised ValueError: x in choose (standing in)"


def test_the_lineup_must_fit_the_game() -> None:
    game = sg.Game.new(seed=1)
    with pytest.raises(sg.ArgumentError, match="3 players are needed, 2 were given"):
        sg.Referee([First(), First()], game=game)
    with pytest.raises(ValueError, match="not both"):
        sg.Referee([First()] * 3, sg.Rules.classic(), game=game)
    with pytest.raises(ValueError, match="not both"):
        sg.Referee([First()] * 3, seed=2, game=game)
    assert game.moves_played == 0
    greedy = sg.bots.GreedyBot()
    referee = sg.Referee((First(), greedy, First()), game=game)
    assert referee.game is game and referee.lineup[1] is greedy
    assert repr(referee) == f"<Referee [First, GreedyBot, First], {game!r}>"


# -- time limits (issue 9, point 3) ------------------------------------------------------


class Sleepy(First):
    """Sleeps ``seconds`` once, in ``when`` (choose, game_started or game_ended), at the
    first call from move ``after`` on."""

    def __init__(self, seconds: float, when: str = "choose", after: int = 0) -> None:
        self.seconds, self.when, self.after = seconds, when, after
        self.slept = False

    def _nap(self, when: str, observation: sg.Observation) -> None:
        if when == self.when and observation.moves_played >= self.after and not self.slept:
            self.slept = True
            time.sleep(self.seconds)

    def game_started(self, observation: sg.Observation) -> None:
        self._nap("game_started", observation)

    def choose(self, observation: sg.Observation) -> sg.Move:
        self._nap("choose", observation)
        return super().choose(observation)

    def game_ended(self, observation: sg.Observation, result: sg.GameResult) -> None:
        self._nap("game_ended", observation)


def test_a_late_answer_is_a_timeout_naming_the_seat_and_is_not_played() -> None:
    game = sg.Game.new(seed=2)
    lineup = [First(), Sleepy(0.6, after=4), First()]
    with pytest.raises(sg.PlayerTimeoutError) as caught:
        sg.play_game(lineup, game=game, move_time=0.1)
    error = caught.value
    assert isinstance(error, sg.PlayerError)
    assert (error.seat, error.timeout) == (1, 0.1)
    assert str(error) == "seat 1 (Sleepy) did not answer within 0.1 s"
    assert game.to_move == 1 and game.moves_played >= 4  # the late answer was not played
    # With a generous limit, the same (slow) players finish the game.
    again = sg.Game.new(seed=2)
    result = sg.play_game([First(), Sleepy(0.6, after=4), First()], game=again, move_time=60)
    assert result == sg.play_game([First()] * 3, seed=2)


@pytest.mark.parametrize("when", ["game_started", "game_ended"])
def test_a_late_hook_is_a_timeout_too(when: str) -> None:
    with pytest.raises(sg.PlayerTimeoutError, match=f"seat 2 .* return from {when} within 0.1 s"):
        sg.play_game([First(), First(), Sleepy(0.6, when)], seed=1, move_time=0.1)


def test_an_answer_in_time_is_played_and_errors_still_win_over_the_clock() -> None:
    result = sg.play_game([Sleepy(0.01, after=1000)] * 3, seed=3, move_time=5)
    assert result == sg.play_game([First()] * 3, seed=3)

    class SlowThenRaises(First):
        def choose(self, observation: sg.Observation) -> sg.Move:
            time.sleep(0.3)
            raise ValueError("late and wrong")

    with pytest.raises(sg.PlayerError, match="raised ValueError") as caught:
        sg.play_game([SlowThenRaises(), First()], seed=1, move_time=0.05)
    assert not isinstance(caught.value, sg.PlayerTimeoutError)


@pytest.mark.parametrize(
    ("move_time", "error"),
    [
        (0, sg.ArgumentError),
        (-1.5, sg.ArgumentError),
        (float("nan"), sg.ArgumentError),
        (float("inf"), sg.ArgumentError),
        ("1", sg.ArgumentTypeError),
        (True, sg.ArgumentTypeError),
    ],
)
def test_a_bad_time_limit_is_refused_before_any_move(
    move_time: Any, error: type[Exception]
) -> None:
    game = sg.Game.new(seed=1)
    with pytest.raises(error, match="move_time must be a positive, finite number of seconds"):
        sg.play_game([First()] * 3, game=game, move_time=move_time)
    assert game.moves_played == 0
    with pytest.raises(error, match="move_time must be"):
        sg.Session([First()] * 3, seed=1, move_time=move_time)


def test_a_session_passes_its_time_limit_to_every_game() -> None:
    lineup = [First(), First(), Sleepy(0.5, after=10)]
    session = sg.Session(lineup, seed=4, move_time=0.1)
    with pytest.raises(sg.PlayerTimeoutError, match="seat 2"):
        session.play_game()
    assert session.games_played == 0  # the game that failed is not counted
    quick = sg.Session.resume(session.record(), [First()] * 3, move_time=0.1)
    quick.play(2)
    assert quick.games_played == 2
