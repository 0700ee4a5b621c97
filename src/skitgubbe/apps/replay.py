"""Replay a saved game: ``skitgubbe replay FILE [--seat N]``.

A :class:`Replay` steps through a game record (what :meth:`Game.record
<skitgubbe.Game.record>` and the ``save`` command of ``skitgubbe play`` write)
move by move. From one seat's view it shows only what that seat saw: its own
cards, every count, the public events, its own draws but the others' draws as
counts. It is drawn from that seat's :class:`~skitgubbe.Observation` at each
step, never from the referee's state. The full view shows every hand, the
collections, the stock and the face-down card.

A replay annotated with a seat's :class:`~skitgubbe.analysis.GameAnalysis`
(:meth:`Replay.annotate`, ``skitgubbe replay --analyse``) shows under each of
that seat's moves its label, its estimated chance of ending as the skitgubbe and
the engine's candidates, and the analysis's summary at the end.

>>> import io
>>> import skitgubbe as sg
>>> from rich.console import Console
>>> game = sg.Game.new(sg.Rules.classic(players=2), seed=5)
>>> for _ in range(4):
...     _ = game.play(game.legal_moves[0])
>>> replay = Replay(game.record(), seat=1)
>>> len(replay), replay.moves == game.moves
(5, True)
>>> screen = Console(file=io.StringIO(), force_terminal=False, width=100)
>>> replay.show(1, screen)
>>> print(screen.file.getvalue().splitlines()[1])
  Seat 0 plays 2♣
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.padding import Padding

from .._files import load_json_object
from ..errors import ArgumentError, ArgumentTypeError
from ..game.events import Event
from ..game.moves import Move, MoveKind
from ..game.observation import Phase
from ..game.render import board, cards, full_board, narration, result_line, say
from ..game.state import Game

if TYPE_CHECKING:
    from ..analysis import GameAnalysis, MoveEstimate, MoveReview

__all__ = ["Replay", "load_record", "review_lines", "seat_labels"]

# A copy of every _MARK_EVERY-th position is kept; other frames are played on from one.
_MARK_EVERY: Final = 32
_PROMPT: Final = "Enter: next · b: back · a number: jump to that move · q: quit > "
# How each label of an analysis is marked and coloured under a move.
_LABEL_STYLES: Final = {
    "forced": "dim",
    "best": "green",
    "good": "default",
    "inaccuracy": "yellow",
    "mistake": "dark_orange",
    "blunder": "bold red",
}
_LABEL_MARKS: Final = {"inaccuracy": " ?!", "mistake": " ?", "blunder": " ??"}
_CANDIDATES: Final = 5  # the engine's candidates listed under a move, lowest loss first


def _move_markup(move: Move) -> str:
    """A move as markup, its cards coloured as the narration colours them."""
    if move.kind is MoveKind.PLAY:
        return cards(move.cards)
    if move.kind is MoveKind.SLOUGH:
        return f"slough {cards(move.cards)}"
    return escape(str(move))


def _percent(estimate: MoveEstimate) -> str:
    return f"{100 * estimate.loss:.1f} % ± {100 * estimate.error:.1f}"


def _verdict(review: MoveReview) -> str:
    """A reviewed move's label, loss, and what was best at what cost, as markup."""
    style = _LABEL_STYLES.get(review.label, "default")
    text = f"[{style}]{review.label}{_LABEL_MARKS.get(review.label, '')}[/]"
    played, best = review.played, review.best
    if played is None or best is None:
        return text
    text += f" · loss {_percent(played)}"
    if review.label != "best":
        text += (
            f"; {_move_markup(best.move)} was best at {_percent(best)} "
            f"(cost {100 * review.cost:.1f} points)"
        )
    return text


def review_lines(review: MoveReview) -> list[str]:
    """A reviewed move's verdict as lines of markup: its label and its loss probability
    (the chance of ending as the skitgubbe) with its error, what the engine preferred and
    what the move cost, then the engine's candidates, lowest loss first.

    >>> import skitgubbe as sg
    >>> from skitgubbe.analysis import MoveEstimate, MoveReview
    >>> played = MoveEstimate(sg.Move.parse("5C"), 0.46, 0.02, 300)
    >>> best = MoveEstimate(sg.Move.parse("7S"), 0.355, 0.012, 1500)
    >>> review_lines(MoveReview(3, played.move, played, best, 0.105, "mistake", None))
    ['Analysis: [dark_orange]mistake ?[/] · loss 46.0 % ± 2.0; [default]7♠[/] was best at 35.5 % ± 1.2 (cost 10.5 points)']
    """  # noqa: E501
    if review.played is None or review.best is None:
        return ["[dim]Analysis: forced (the only legal move)[/]"]
    lines = [f"Analysis: {_verdict(review)}"]
    if review.analysis is not None:
        estimates = review.analysis.estimates
        rank = next(i for i, e in enumerate(estimates) if e.move == review.move)
        shown = [*estimates[:_CANDIDATES], *([estimates[rank]] if rank >= _CANDIDATES else [])]
        parts = [
            f"{_move_markup(e.move)} {100 * e.loss:.1f} %"
            + (" [dim](played)[/]" if e.move == review.move else "")
            for e in shown
        ]
        if rank >= _CANDIDATES:
            parts[-1] = f"… {parts[-1]}, number {rank + 1}"
        more = "" if len(estimates) <= _CANDIDATES else f" [dim]({len(estimates)} moves)[/]"
        lines.append("[dim]Candidates:[/] " + " · ".join(parts) + more)
    return lines


def load_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a game record from a JSON file, with a clear error when it cannot be read.

    >>> load_record("no-such-file.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.SkitgubbeError: cannot read no-such-file.json: No such file or directory
    """
    record = load_json_object(path, "game record")
    return record


_MAX_NAME: Final = 40  # a longer name in a record is not shown (the seat's number is)


def seat_labels(record: Mapping[str, Any], players: int, seat: int | None) -> list[str]:
    """How a replay labels each seat: ``"you"`` for the viewing ``seat``, else the seat's
    number and who sat there, from the record's ``names`` (a list with a short printable
    string a seat, as ``skitgubbe play`` saves: ``"person"``, ``"easy"``, ``"greedy"``...).
    A seat whose name is missing or not such a string is labelled by its number alone.

    >>> seat_labels({"names": ["person", "easy", "hard"]}, 3, 0)
    ['you', 'seat 1 · easy', 'seat 2 · hard']
    >>> seat_labels({"names": ["person", "easy", "hard"]}, 3, None)
    ['seat 0 · person', 'seat 1 · easy', 'seat 2 · hard']
    >>> seat_labels({}, 2, 1), seat_labels({"names": ["a\\x1b[2J", 5]}, 2, None)
    (['seat 0', 'you'], ['seat 0', 'seat 1'])
    """
    names = record.get("names")
    found = list(names) if isinstance(names, list) and len(names) == players else []
    labels = []
    for s in range(players):
        name = found[s].strip() if s < len(found) and isinstance(found[s], str) else ""
        if s == seat:
            labels.append("you")
        elif name and len(name) <= _MAX_NAME and name.isprintable():
            labels.append(f"seat {s} · {name}")
        else:
            labels.append(f"seat {s}")
    return labels


class Replay:
    """A saved game, ready to be stepped through from one ``seat``'s view or in full.

    The record is checked move by move as it is read (:meth:`Game.from_record
    <skitgubbe.Game.from_record>`). Frame ``k`` is the position after ``k``
    moves (frame 0 is the deal); there are ``len(replay)`` frames.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=3)
    >>> _ = game.play(game.legal_moves[0])
    >>> replay = Replay(game.record())
    >>> len(replay), replay.seat, replay.game.moves_played
    (2, None, 1)
    """

    def __init__(self, record: Mapping[str, Any], *, seat: int | None = None) -> None:
        game = Game.from_record(record)
        if seat is not None and type(seat) is not int:
            raise ArgumentTypeError(f"--seat is a seat number or None, not {seat!r}")
        if seat is not None and not 0 <= seat < game.players:
            raise ArgumentError(f"--seat must be 0..{game.players - 1}, not {seat!r}")
        self._seat = seat
        self._moves = game.moves
        # Every _MARK_EVERY-th position, from a second replay forward (undoing
        # the first would bring back every state the history dropped): any
        # frame is at most _MARK_EVERY - 1 moves after one of them.
        walker = Game.from_record({**record, "moves": [], "result": None})
        marks = [walker.copy()]
        for number, move in enumerate(self._moves, 1):
            walker.play(move)
            if number % _MARK_EVERY == 0:
                marks.append(walker.copy())
        self._marks = marks
        self._game = walker
        self._names = seat_labels(record, game.players, seat)
        self._analysis: GameAnalysis | None = None
        self._reviews: dict[int, MoveReview] = {}  # by the frame that follows the move

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, seat: int | None = None) -> Replay:
        """The replay of the record saved in the JSON file ``path``.

        >>> Replay.load("no-such-file.json")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.SkitgubbeError: cannot read no-such-file.json: ...
        """
        return cls(load_record(path), seat=seat)

    @property
    def game(self) -> Game:
        """The game at its last recorded move."""
        return self._game

    @property
    def seat(self) -> int | None:
        """The seat whose view is shown; ``None`` for the full view."""
        return self._seat

    @property
    def moves(self) -> tuple[Move, ...]:
        """The recorded moves, first to last."""
        return self._moves

    @property
    def analysis(self) -> GameAnalysis | None:
        """The analysis shown with the moves (:meth:`annotate`), or None."""
        return self._analysis

    def annotate(self, analysis: GameAnalysis | None) -> None:
        """Show ``analysis`` (a seat's review of this game, :func:`skitgubbe.analysis.analyse`)
        with the moves: under each of the seat's moves its verdict and the engine's
        candidates (:func:`review_lines`), the summary at the end. ``None`` removes it.
        An analysis of another game raises :class:`~skitgubbe.errors.ArgumentError`.

        >>> import io, skitgubbe as sg
        >>> from rich.console import Console
        >>> from skitgubbe.analysis import analyse
        >>> game = sg.Game.new(sg.Rules.classic(players=2), seed=5)
        >>> for _ in range(6):
        ...     _ = game.play(game.legal_moves[0])
        >>> replay = Replay(game.record(), seat=0)
        >>> replay.annotate(analyse(game, seat=0, engine="pimc:worlds=4"))
        >>> screen = Console(file=io.StringIO(), force_terminal=False, width=200)
        >>> replay.show(1, screen)
        >>> "Analysis: " in screen.file.getvalue()
        True
        """
        if analysis is None:
            self._analysis, self._reviews = None, {}
            return
        from ..analysis import GameAnalysis

        if not isinstance(analysis, GameAnalysis):
            raise ArgumentTypeError(f"an analysis is a GameAnalysis, not {analysis!r}")
        moves = self._moves
        for review in analysis.reviews:
            if not 0 <= review.index < len(moves) or moves[review.index] != review.move:
                raise ArgumentError(
                    f"the analysis is of another game: its move {review.index} is "
                    f"{review.move}, not this game's"
                )
        self._analysis = analysis
        self._reviews = {review.index + 1: review for review in analysis.reviews}

    def __len__(self) -> int:
        return len(self._moves) + 1

    # -- frames ---------------------------------------------------------------------

    def events(self, index: int) -> tuple[Event, ...]:
        """The events of move ``index`` (frame 0: the deal) as the viewing seat saw them.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> _ = game.play("6H")
        >>> [str(e) for e in Replay(game.record(), seat=1).events(1)]
        ['seat 0 plays 6♥', 'seat 0 draws 1 card']
        >>> [str(e) for e in Replay(game.record()).events(1)]
        ['seat 0 plays 6♥', 'seat 0 draws 5♠']
        """
        self._check(index)
        if index == 0:
            start = self._position(0)
            if self._seat is None:
                return start.history
            return tuple(start.observation(self._seat).history)
        return self._advance(self._position(index - 1), index)

    def _advance(self, position: Game, index: int) -> tuple[Event, ...]:
        """Play move ``index`` on ``position`` (the frame before); return what the viewer saw."""
        move = self._moves[index - 1]
        if self._seat is None:
            return tuple(position.play(move))
        seen = len(position.observation(self._seat).history)
        position.play(move)
        return tuple(position.observation(self._seat).history[seen:])

    def _check(self, index: object) -> None:
        if type(index) is not int:
            raise ArgumentTypeError(f"a move number is an int, not {index!r}")
        if not 0 <= index < len(self):
            raise ArgumentError(f"no move {index!r}: the game has moves 0..{len(self) - 1}")

    def _position(self, index: int) -> Game:
        """Frame ``index``: a game of its own, played on from the nearest mark before it."""
        self._check(index)
        position = self._marks[index // _MARK_EVERY].copy()
        for move in self._moves[index - index % _MARK_EVERY : index]:
            position.play(move)
        return position

    def _heading(self, index: int) -> str:
        last = len(self) - 1
        if index == 0:
            return f"The deal (move 0 of {last})"
        mover = self._position(index - 1).to_move
        return (
            f"Move {index} of {last} · {escape(self._names[mover]) if mover is not None else '?'}"
        )

    def frame(self, index: int) -> list[RenderableType]:
        """What the viewer sees after move ``index``: its events, then the table.

        >>> import skitgubbe as sg
        >>> frame = Replay(sg.Game.new(seed=2).record(), seat=0).frame(0)
        >>> "Your hand:" in frame, "Seat 1's hand:" in frame
        (True, False)
        """
        position = self._position(index)
        lines: list[RenderableType] = [
            f"  {line}" for line in narration(self.events(index), self._seat)
        ]
        lines += self._review_lines(index)
        if self._seat is None:
            lines += full_board(position)
        else:
            lines += board(position.observation(self._seat), self._names)
        if position.result is not None:
            lines.append(f"[bold]{result_line(position, self._seat)}[/]")
        if index == len(self) - 1:
            lines += self._summary_lines()
        return lines

    def _review_lines(self, index: int, indent: int = 2) -> list[RenderableType]:
        """The analysis of the move that led to frame ``index``, if it was analysed,
        indented (a wrapped line too)."""
        review = self._reviews.get(index)
        if review is None:
            return []
        return [Padding(line, (0, 0, 0, indent), expand=False) for line in review_lines(review)]

    def _summary_lines(self) -> list[RenderableType]:
        """The analysis summed up; its costliest moves numbered as the replay numbers them."""
        analysis = self._analysis
        if analysis is None:
            return []
        counts = ", ".join(f"{n} {label}" for label, n in analysis.counts().items() if n)
        lines: list[RenderableType] = [
            f"[bold]Analysis of seat {analysis.seat}[/] ({escape(analysis.engine)}): accuracy "
            f"{analysis.accuracy:.0f} % over {len(analysis.choices)} choices, mean cost "
            f"{100 * analysis.average_cost:.1f} points{'; ' if counts else ''}{counts}"
        ]
        for review in analysis.costliest():
            line = (
                f"costly: move {review.index + 1}, {_move_markup(review.move)}: {_verdict(review)}"
            )
            lines.append(Padding(line, (0, 0, 0, 2), expand=False))
        return lines

    def _heading_lines(self, console: Console) -> None:
        """The title, and what an analysis shown with the moves is."""
        console.rule(escape(self._title()))
        analysis = self._analysis
        if analysis is not None:
            console.print(
                f"Seat {analysis.seat}'s moves are analysed by {escape(analysis.engine)}: "
                "loss is the estimated chance of ending as the skitgubbe after the move.",
                highlight=False,
            )

    def show(self, index: int, console: Console) -> None:
        """Print frame ``index`` under a heading.

        >>> import io, skitgubbe as sg
        >>> from rich.console import Console
        >>> screen = Console(file=io.StringIO(), force_terminal=False, width=60)
        >>> Replay(sg.Game.new(seed=2).record()).show(0, screen)
        >>> screen.file.getvalue().splitlines()[0].strip("─ ")
        'The deal (move 0 of 0)'
        """
        console.rule(self._heading(index))
        for part in self.frame(index):
            console.print(part, highlight=False)

    def _title(self) -> str:
        game = self._game
        view = "every card face up" if self._seat is None else f"as seat {self._seat} saw it"
        seed = f", seed {game.seed}" if game.seed is not None else ""
        return f"Replay: {game.rules.describe()}{seed}, {len(self) - 1} moves; {view}"

    def print_all(self, console: Console) -> None:
        """Print the whole game at once: the deal, every move's events, phase 2, the end.

        In a seat's view its cards are shown again after every move that brought it cards.

        >>> import io, skitgubbe as sg
        >>> from rich.console import Console
        >>> game = sg.Game.new(sg.Rules.classic(players=2), seed=5)
        >>> while game.result is None:
        ...     _ = game.play(game.legal_moves[0])
        >>> screen = Console(file=io.StringIO(), force_terminal=False, width=100)
        >>> Replay(game.record(), seat=0).print_all(screen)
        >>> screen.file.getvalue().count("Your hand:") >= 1
        True
        """
        self._heading_lines(console)
        self.show(0, console)
        seat = self._seat
        position = self._position(0)
        hand = None if seat is None else position.observation(seat).hand
        shedding_shown = False
        last = len(self) - 1
        width = len(str(last))
        if last:
            console.rule("Moves")
        for index in range(1, last + 1):
            # One walk forward: each frame is the one before with its move played.
            before = position.phase
            for number, line in enumerate(narration(self._advance(position, index), seat)):
                label = f"{index:>{width}}." if number == 0 else " " * (width + 1)
                console.print(f"{label} {line}", highlight=False)
            for part in self._review_lines(index, indent=width + 2):
                console.print(part, highlight=False)
            if seat is not None:
                now = position.observation(seat).hand
                if hand is not None and now - hand and position.result is None:
                    # Cards came in (a draw, a pick-up): show the whole hand again.
                    console.print(f"{'':>{width}}  [dim]your cards:[/] {cards(now)}")
                hand = now
            if (
                not shedding_shown
                and position.phase is Phase.SHEDDING
                and before is Phase.COLLECTING
            ):
                shedding_shown = True
                console.rule("Phase 2 begins")
                parts = (
                    full_board(position)
                    if seat is None
                    else board(position.observation(seat), self._names)
                )
                for part in parts:
                    console.print(part, highlight=False)
                console.rule("Moves")
        if last:
            console.rule("The end" if self._game.result is not None else "Last recorded move")
            told = len(narration(self.events(last), seat)) + len(self._review_lines(last))
            for part in self.frame(last)[told:]:
                console.print(part, highlight=False)
        if self._game.result is None:
            console.print("The record stops before the end of the game.", highlight=False)

    def step(self, console: Console, input: Callable[[str], str] | None = None) -> int:
        """Step through the game interactively; returns the exit status.

        Enter (or ``n``) shows the next move, ``b`` the one before, a number
        jumps to that move, ``q`` quits; the end of input quits too.

        >>> import io, skitgubbe as sg
        >>> from rich.console import Console
        >>> game = sg.Game.new(seed=2)
        >>> _ = game.play("6H")
        >>> keys = iter(["", "b", "7", "q"])
        >>> screen = Console(file=io.StringIO(), force_terminal=False, width=100)
        >>> Replay(game.record(), seat=2).step(screen, lambda prompt: next(keys))
        0
        >>> "There is no move 7: the game has moves 0 to 1." in screen.file.getvalue()
        True
        """
        read = input if input is not None else console.input
        last = len(self) - 1
        self._heading_lines(console)
        index = 0
        self.show(index, console)
        while True:
            try:
                answer = read(_PROMPT).strip().lower()
            except (EOFError, KeyboardInterrupt):
                console.print()
                return 0
            target = index
            if answer in ("", "n", "next"):
                target = index + 1
            elif answer in ("b", "back"):
                target = index - 1
            elif answer in ("q", "quit", "exit"):
                return 0
            elif answer.isascii() and answer.isdigit():
                target = int(answer)
                if target > last:
                    say(console, f"There is no move {target}: the game has moves 0 to {last}.")
                    continue
            else:
                say(
                    console,
                    f"Not understood: {answer!r}. Enter: next, b: back, "
                    f"a number 0 to {last}: jump to that move, q: quit.",
                )
                continue
            if target > last:
                say(console, "That was the last move (b: back, a number: jump, q: quit).")
                continue
            if target < 0:
                say(console, "This is the deal: there is nothing before it.")
                continue
            index = target
            self.show(index, console)
