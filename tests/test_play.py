"""``skitgubbe play``: the terminal game driven through its input, and once in a real terminal."""

from __future__ import annotations

import io
import json
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

import skitgubbe as sg
from skitgubbe.apps.play import PlaySession
from skitgubbe.errors import ArgumentError, ArgumentTypeError

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def screen(width: int = 100) -> Console:
    return Console(file=io.StringIO(), force_terminal=False, width=width, highlight=False)


def text_of(console: Console) -> str:
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


class Script:
    """Answers a session's prompts from a list (then EOF), noting the game's state at each."""

    def __init__(self, answers: list[str] | Callable[[sg.Game], str]) -> None:
        self.answers = answers
        self.session: PlaySession | None = None
        self.snapshots: list[bytes] = []

    def __call__(self, prompt: str) -> str:
        assert self.session is not None
        game = self.session.game
        self.snapshots.append(game._core.snapshot())
        if callable(self.answers):
            return self.answers(game)
        if len(self.snapshots) > len(self.answers):
            raise EOFError
        return self.answers[len(self.snapshots) - 1]


def session(
    answers: list[str] | Callable[[sg.Game], str], **options: object
) -> tuple[PlaySession, Script, Console]:
    script = Script(answers)
    console = screen()
    options.setdefault("autosave", False)
    options.setdefault("seed", 7)
    play = PlaySession.new(console=console, input=script, **options)  # type: ignore[arg-type]
    script.session = play
    return play, script, console


# -- whole games -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "seat", "bots"),
    [
        (sg.Rules.classic(players=2), 0, ["greedy"]),
        (sg.Rules.classic(players=3), 1, ["random", "greedy"]),
        (sg.Rules.classic(players=4), 3, ["greedy"]),
        (sg.Rules.modern(players=3), 0, ["greedy"]),  # slough windows, runs, rotation
        (sg.Rules.modern(players=4), 2, ["random"]),
    ],
)
def test_a_whole_game_against_bots_always_answering_1(
    rules: sg.Rules, seat: int, bots: list[str]
) -> None:
    play, script, console = session(lambda game: "1", rules=rules, seat=seat, bots=bots)
    assert play.run() == 0
    game = play.game
    result = game.result
    assert result is not None
    out = text_of(console)
    assert "Game over" in out
    assert "skitgubbe after" in out or "nobody lost" in out
    assert len(script.snapshots) >= 1  # the person was asked at least once
    # Every answer "1" was the first legal move of the person's seat.
    replay = sg.Game.from_record(game.record())
    assert replay.moves == game.moves


def test_the_screen_shows_the_seats_view_and_nothing_more() -> None:
    play, _, console = session(["quit"], players=3, seed=12)
    game = play.game
    assert play.run() == 0
    out = text_of(console)
    hand = game.hands[0]
    assert "Your hand:" in out
    for card in hand:
        assert str(card) in out
    for other in (1, 2):  # nothing is public yet: the others' hands must not show
        for card in game.hands[other]:
            assert str(card) not in out
    assert "stock: 43 cards" in out
    assert re.search(r"^1\s+seat 1 · greedy\s+3\s+0", out, flags=re.M)
    assert "Your moves: 1) " in out and "flip" in out
    assert "Trump: unknown" in out


def test_hearts_and_diamonds_are_red_in_a_terminal() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, color_system="standard", width=100)
    play = PlaySession.new(
        players=2, seed=3, console=console, input=lambda prompt: "quit", autosave=False
    )
    play.run()
    out = text_of(console)
    red = [card for card in play.game.hands[0] if card.suit in (sg.Suit.HEARTS, sg.Suit.DIAMONDS)]
    assert red
    assert all(f"\x1b[31m{card}" in out for card in red)


def test_what_happened_since_the_last_turn_keeps_others_draws_hidden() -> None:
    play, _, console = session(["1", "quit"], players=3, seed=5)
    play.run()
    out = text_of(console)
    since = out.split("Since your last turn:")[1]
    assert re.search(r"You draw \S+", since)  # own draws by name
    assert "Seat 1 draws 1 card" in since  # others' draws as counts
    assert re.search(r"^  (You win|Seat \d wins) \S+ \S+$", since, flags=re.M)  # a duel won


def test_a_bot_that_fails_ends_the_game_cleanly() -> None:
    class Broken:
        def choose(self, observation: sg.Observation) -> sg.Move:
            raise RuntimeError("out of order")

    console = screen()
    game = sg.Game.new(sg.Rules.classic(players=2), seed=3)
    play = PlaySession(
        game, [None, Broken()], seat=0, console=console, input=lambda p: "1", autosave=False
    )
    assert play.run() == 1
    assert "The bot at seat 1 failed: RuntimeError: out of order" in text_of(console)


# -- commands ---------------------------------------------------------------------------


def test_hint_names_a_legal_move_and_changes_nothing() -> None:
    play, script, console = session(["hint", "quit"], players=3, seed=9)
    assert play.run() == 0
    out = text_of(console)
    found = re.search(r"Hint: ismcts would play (\d+)\) (.+)", out)
    assert found
    legal = play.game.legal_moves
    number = int(found.group(1))
    assert 1 <= number <= len(legal)
    assert found.group(2).split(" (")[0] == str(legal[number - 1])
    assert script.snapshots[0] == script.snapshots[1]


def test_undo_in_a_casual_game_takes_back_the_bots_moves_too() -> None:
    play, script, console = session(
        ["1", "1", "undo", "undo", "undo", "quit"], players=3, seed=4, casual=True
    )
    start = sg.Game.new(sg.Rules.classic(players=3), seed=4)._core.snapshot()
    assert play.run() == 0
    out = text_of(console)
    snapshots = script.snapshots
    assert snapshots[0] == start
    assert snapshots[3] == snapshots[1]  # the first undo: back to the second turn
    assert snapshots[4] == start  # the second: back to the deal
    assert snapshots[5] == start  # the third had nothing to undo
    assert re.search(r"Took back your move and \d+ bot moves?\.", out)
    assert "There is nothing to undo: you have not moved yet." in out
    assert play.game.moves_played == 0


def test_undo_is_refused_outside_casual_games() -> None:
    play, script, console = session(["1", "undo", "quit"], players=3, seed=4)
    play.run()
    assert "Undo is only for casual games" in text_of(console)
    assert script.snapshots[1] == script.snapshots[2]
    assert play.game.moves_played > 0


def test_save_writes_a_record_that_replays(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    play, _, console = session(["1", "1", f"save {path}", "1", "quit"], players=2, seed=6)
    play.run()
    record = json.loads(path.read_text(encoding="utf-8"))
    replayed = sg.Game.from_record(record)
    saved_moves = len(record["moves"])
    assert 2 <= saved_moves < play.game.moves_played
    assert replayed.moves == play.game.moves[:saved_moves]
    assert f"Saved the game to {path}" in text_of(console)


def test_save_without_a_name_uses_the_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    play, _, _ = session(["1", "save", "quit"], players=2, seed=21)
    play.run()
    record = json.loads((tmp_path / "skitgubbe-21.json").read_text(encoding="utf-8"))
    assert record["seed"] == 21 and record["moves"]


def test_quit_saves_says_where_and_plays_nothing(tmp_path: Path) -> None:
    path = tmp_path / "left.json"
    play, script, console = session(["quit"], players=3, seed=2, autosave=True, save_path=path)
    assert play.run() == 0
    assert len(script.snapshots) == 1 and play.game.moves_played == 0
    assert f"Saved the game to {path}" in text_of(console)
    assert sg.Game.from_record(json.loads(path.read_text(encoding="utf-8"))).moves == ()


def test_end_of_input_leaves_cleanly() -> None:
    play, script, console = session([], players=3, seed=2)
    assert play.run() == 0
    assert len(script.snapshots) == 1
    assert "Left the game; it was not saved." in text_of(console)


def test_a_finished_game_is_saved_automatically(tmp_path: Path) -> None:
    path = tmp_path / "done.json"
    play, _, _ = session(lambda game: "1", players=2, seed=8, autosave=True, save_path=path)
    play.run()
    game = sg.Game.from_record(json.loads(path.read_text(encoding="utf-8")))
    assert game.result == play.game.result is not None


def test_move_text_and_a_slough_window() -> None:
    """Text answers work; in a slough window a bare card means 'slough' it."""

    def answer(game: sg.Game) -> str:
        legal = game.legal_moves
        sloughs = [m for m in legal if m.kind is sg.MoveKind.SLOUGH]
        if sloughs:
            return " ".join(str(card) for card in sloughs[0].cards)  # no "slough" word
        return str(legal[-1]) if legal[-1].kind is sg.MoveKind.PLAY else str(legal[0])

    sloughed = []
    for seed in range(12):
        play, _, _ = session(answer, rules=sg.Rules.modern(players=3), seed=seed)
        play.run()
        assert play.game.result is not None
        sloughed += [e for e in play.game.history if e.kind is sg.EventKind.SLOUGH and e.seat == 0]
        if sloughed:
            break
    assert sloughed


# -- bad input ---------------------------------------------------------------------------


def _card_not_held(game: sg.Game) -> str:
    return str(next(card for card in sg.CardSet.full() if card not in game.hands[0]))


def _two_held_cards(game: sg.Game) -> str:
    return " ".join(str(card) for card in list(game.hands[0])[:2])


BAD_INPUT: list[tuple[str | Callable[[sg.Game], str], str]] = [
    ("", "Type the number of a move"),
    ("   ", "Type the number of a move"),
    ("dance", "Unknown command 'dance'"),
    ("7x", "'7x' is not a card"),
    ("99", "There is no move 99: choose a number from 1 to 4"),
    ("0", "There is no move 0"),
    ("-1", "There is no move -1"),
    ("pick", "You cannot play that: nobody picks up in phase 1"),
    ("pass", "there is no slough window open"),
    ("slough 7h", "there is no slough window open"),
    (_card_not_held, "You cannot play that: seat 0 does not hold"),
    (_two_held_cards, "these rules allow one card per play in phase 1"),
    ("undo", "Undo is only for casual games"),
    ("hint me", "hint takes no argument"),
    ("save /no/such/directory/x.json", "Cannot save to /no/such/directory/x.json"),
    ("[/bold] [red]", "is not a card"),  # rich markup in the answer is shown, not obeyed
    ("♥♥", "is not a card"),
    ("1.5", "is not a card"),
]


@pytest.mark.parametrize(("answer", "explanation"), BAD_INPUT)
def test_bad_input_is_explained_and_changes_nothing(
    answer: str | Callable[[sg.Game], str], explanation: str
) -> None:
    game = sg.Game.new(sg.Rules.classic(players=3), seed=7)
    text = answer(game) if callable(answer) else answer
    play, script, console = session([text, "quit"], players=3, seed=7)
    assert play.run() == 0
    assert len(script.snapshots) == 2  # asked again after the bad answer
    assert script.snapshots[0] == script.snapshots[1] == game._core.snapshot()
    out = text_of(console).split("Your moves:", 1)[1]
    assert explanation in " ".join(out.split())


def test_flip_is_refused_where_the_rules_forbid_it() -> None:
    play, script, console = session(["flip", "quit"], rules=sg.Rules.modern(players=3), seed=7)
    play.run()
    assert "these rules do not allow trying your luck" in text_of(console)
    assert script.snapshots[0] == script.snapshots[1]


def test_bad_options_are_errors_before_the_game() -> None:
    with pytest.raises(ArgumentError, match=r"--seat must be 0\.\.2"):
        PlaySession.new(seat=3)
    with pytest.raises(ArgumentTypeError, match="--seat is a seat number, not '1'"):
        PlaySession.new(seat="1")  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="one bot spec for all 2 other seats"):
        PlaySession.new(bots=["greedy", "greedy", "greedy"])
    with pytest.raises(ArgumentError, match="--players 4 does not match the rules' 3"):
        PlaySession.new(sg.Rules.classic(players=3), players=4)
    game = sg.Game.new(sg.Rules.classic(players=2), seed=1)
    with pytest.raises(ArgumentError, match=r"your seat must be 0\.\.1, not 2"):
        PlaySession(game, [None, sg.bots.GreedyBot()], seat=2)
    with pytest.raises(ArgumentError, match="expected 2 seats of bots"):
        PlaySession(game, [None], seat=0)
    with pytest.raises(ArgumentError, match="bots needs None at your seat 0 only"):
        PlaySession(game, [sg.bots.GreedyBot(), None], seat=0)
    with pytest.raises(sg.SkitgubbeError, match="no bot named 'nobody'"):
        PlaySession.new(bots=["nobody"])


# -- the real command in a pseudo-terminal -------------------------------------------


def test_the_real_command_in_a_pseudo_terminal(tmp_path: Path) -> None:
    """``python -m skitgubbe play`` in a terminal: a hint, then "1" until the game ends."""
    master, slave = os.openpty()
    env = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "COLUMNS")}
    env["TERM"] = "xterm-256color"
    if env.get("PYTHONPATH"):  # the command runs elsewhere: keep a relative PYTHONPATH working
        env["PYTHONPATH"] = os.pathsep.join(
            os.path.abspath(entry) for entry in env["PYTHONPATH"].split(os.pathsep)
        )
    process = subprocess.Popen(
        [sys.executable, "-m", "skitgubbe", "play", "--players", "2", "--seed", "7"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=tmp_path,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    output = b""
    answered = 0
    deadline = time.monotonic() + 60
    try:
        while True:
            assert time.monotonic() < deadline, "the game did not finish in time"
            ready, _, _ = select.select([master], [], [], 0.2)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the command has ended and closed the terminal
                break
            if not chunk:
                break
            output += chunk
            prompts = ANSI.sub("", output.decode("utf-8", "replace")).count("Your move (")
            while answered < prompts:
                os.write(master, b"hint\n" if answered == 0 else b"1\n")
                answered += 1
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    text = output.decode("utf-8", "replace")
    assert "\x1b[" in text  # rich draws in colour in a terminal
    plain = ANSI.sub("", text)
    assert "Hint: ismcts would play" in plain
    assert "Game over" in plain
    assert "skitgubbe after" in plain or "nobody lost" in plain
    record = json.loads((tmp_path / "skitgubbe-7.json").read_text(encoding="utf-8"))
    assert sg.Game.from_record(record).result is not None


def test_the_screens_of_a_whole_game_show_only_what_the_seat_saw() -> None:
    """Each turn's screen holds no card the person's seat could not see at that moment."""
    from tests.test_replay import hidden_by_move

    play, _, console = session(lambda game: "1", rules=sg.Rules.modern(players=4), seat=1)
    play.run()
    hidden = hidden_by_move(play.game.record(), 1)
    screens = re.split(r"^─+ (Move \d+|Game over) ─+$", text_of(console), flags=re.M)
    assert len(screens) > 10
    for title, text in zip(screens[1::2], screens[2::2], strict=True):
        moves = play.game.moves_played if title == "Game over" else int(title.split()[1]) - 1
        leaked = sorted(card for card in hidden[moves] if card in text)
        assert not leaked, f"the screen at {title} shows {leaked}"
