"""Play Skitgubbe in the terminal against bots: ``skitgubbe play``.

A :class:`PlaySession` runs one game between a person at one seat and bots at
the others. It reads the person's answers through an input function and draws
the table on a :mod:`rich` console, so the same loop runs in a terminal and in
a test. The screen shows only what the person's seat knows: it is drawn from
that seat's :class:`~skitgubbe.Observation`, never from the game.

The person answers with the number of a listed move or with move text
(``7h``, ``7h 8h 9h``, ``pick``, ``flip``, ``slough 7h``, ``pass``), or with a
command: ``hint``, ``undo`` (casual games), ``save [FILE]``, ``quit``,
``help``. Bad input is explained and leaves the game as it was. ``hint`` lists
the person's moves with each one's estimated chance of ending as the skitgubbe
(:func:`skitgubbe.analysis.analyse_position` on the person's own observation,
:data:`HINT_ENGINE`).

>>> import io
>>> from rich.console import Console
>>> answers = iter(["hint", "1", "quit"])
>>> screen = Console(file=io.StringIO(), force_terminal=False, width=100)
>>> session = PlaySession.new(
...     players=2, seed=3, console=screen, input=lambda prompt: next(answers), autosave=False
... )
>>> session.run(), session.game.moves_played > 0
(0, True)
>>> "Hint: ismcts would play" in screen.file.getvalue()
True
>>> "chance of ending as the skitgubbe" in screen.file.getvalue()
True
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, Literal

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.table import Table

from .. import _core
from .. import bots as _bots
from ..analysis import (
    DEFAULT_ENGINE,
    analyse_position,
    engine_for,
    explain_choice,
    position_seed,
)
from ..errors import ArgumentError, ArgumentTypeError, IllegalMoveError, ParseError
from ..game.moves import Move, MoveKind
from ..game.observation import Observation, Phase
from ..game.render import board, capital, card, cards, narration, result_line, say, seat_name
from ..game.rules import Rules
from ..game.state import Game
from ..play.players import Player

__all__ = ["HINT_ENGINE", "PlaySession"]

HINT_ENGINE: Final = DEFAULT_ENGINE
"""The search behind the ``hint`` command: the one every analysis runs,
:data:`skitgubbe.analysis.DEFAULT_ENGINE` (ISMCTS with 30,000 simulations, about 0.1 s
on one core), so the hint and ``skitgubbe analyse`` weigh a position alike."""

InputFunction = Callable[[str], str]
"""Reads one answer, shown the prompt; raises EOFError when input ends."""

_COMMANDS: Final = ("hint", "undo", "save", "quit", "help")
_QUIT_WORDS: Final = ("quit", "exit", "q")
_HELP_WORDS: Final = ("help", "?", "h")
# When the person is out, the bots play on; the last lines of that are enough.
_MAX_EVENT_LINES: Final = 40


def _move_text(move: Move) -> str:
    kind = move.kind
    if kind is MoveKind.PLAY:
        return cards(move.cards)
    if kind is MoveKind.SLOUGH:
        return f"slough {cards(move.cards)}"
    if kind is MoveKind.FLIP:
        return "flip [dim](try your luck)[/]"
    if kind is MoveKind.PICK_UP:
        return "pick [dim](pick up)[/]"
    return "pass [dim](throw nothing)[/]"


def _situation(observation: Observation) -> str:
    """What the player to move is asked to do, in words."""
    if observation.slough_winner is not None:
        winner = seat_name(observation.slough_winner, observation.seat)
        return (
            f"{capital(winner)} won the trick: throw cards of ranks lying in it (slough), or pass."
        )
    top = observation.top
    if observation.phase is Phase.SHEDDING:
        if top is None:
            return "The table is empty: lead any card" + (
                " or run." if observation.rules.runs else "."
            )
        suit = top.suit.name.lower()[:-1]  # "hearts" -> "heart"
        trump = observation.trump
        beat = f"a higher {suit}" + (" or any trump" if trump not in (None, top.suit) else "")
        return f"Beat {card(top)} ({beat}) or pick up."
    if not observation.table:
        return "Lead a card to the trick."
    return "Play a card to the trick (the highest rank wins; you need not beat)."


_MAX_SAVED_NAME: Final = 40  # the longest name of a seat saved with a record


def _fresh_path(path: Path) -> Path:
    """``path`` if no file is there, else the first free ``NAME-2.json``, ``NAME-3.json``...
    beside it: where a new game's record goes without writing over another's.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _fresh_path(folder / "skitgubbe-5.json").name
    'skitgubbe-5.json'
    >>> _ = (folder / "skitgubbe-5.json").write_text("{}")
    >>> _ = (folder / "skitgubbe-5-2.json").write_text("{}")
    >>> _fresh_path(folder / "skitgubbe-5.json").name
    'skitgubbe-5-3.json'
    """
    if not path.exists():
        return path
    for number in range(2, 10_000):
        candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")
        if not candidate.exists():
            return candidate
    return path.with_name(f"{path.stem}-{secrets.token_hex(4)}{path.suffix}")


def _check_seat(seat: int, players: int, name: str) -> None:
    if type(seat) is not int:
        raise ArgumentTypeError(f"{name} is a seat number, not {seat!r}")
    if not 0 <= seat < players:
        raise ArgumentError(f"{name} must be 0..{players - 1}, not {seat!r}")


# -- the session ----------------------------------------------------------------------

_Outcome = Literal["moved", "undone", "stay", "quit"]


class PlaySession:
    """One game between a person at ``seat`` and bots at the other seats.

    ``bots`` has one entry per seat: a :class:`~skitgubbe.Player` for each bot
    and ``None`` at the person's seat; ``names`` label the seats on screen.
    The person's answers come from ``input`` (called with the prompt; it raises
    :class:`EOFError` when input ends); everything is drawn on ``console``.
    ``hint`` is what the ``hint`` command asks: a search (a spec such as
    ``"ismcts:iterations=5000"`` or a search bot, by default :data:`HINT_ENGINE`), which
    lists every legal move with its estimated chance of ending as the skitgubbe
    (:func:`~skitgubbe.analysis.analyse_position` on the person's observation), or
    any other player, which names only the move it would play. ``casual`` allows
    ``undo``. ``save`` without a file name writes to ``save_path`` (by default
    ``skitgubbe-<seed>.json``, or the next free name, ``skitgubbe-<seed>-2.json``..., when
    that file holds another game: a replayed seed never overwrites its first game); with
    ``autosave`` the game is also saved there when it ends or the person quits. A saved
    record names who sat at each seat (``"names"``: ``"person"``, the bots' specs), which
    ``skitgubbe replay`` shows. Bots made by :meth:`new` from specs are closed when
    :meth:`run` ends (an engine's process with them).

    >>> import io
    >>> import skitgubbe as sg
    >>> from rich.console import Console
    >>> screen = Console(file=io.StringIO(), force_terminal=False, width=100)
    >>> game = sg.Game.new(sg.Rules.classic(players=2), seed=5)
    >>> session = PlaySession(
    ...     game, [None, sg.bots.GreedyBot()], seat=0, console=screen,
    ...     input=lambda prompt: "1", autosave=False,
    ... )
    >>> session.run(), game.result is not None
    (0, True)
    """

    def __init__(
        self,
        game: Game,
        bots: Sequence[Player | None],
        seat: int,
        *,
        console: Console | None = None,
        input: InputFunction | None = None,
        casual: bool = False,
        hint: Player | str | None = None,
        names: Sequence[str] | None = None,
        save_path: str | os.PathLike[str] | None = None,
        autosave: bool = True,
    ) -> None:
        players = game.players
        _check_seat(seat, players, "your seat")
        if len(bots) != players:
            raise ArgumentError(
                f"expected {players} seats of bots (None at yours), not {len(bots)}"
            )
        missing = [s for s, bot in enumerate(bots) if bot is None and s != seat]
        if bots[seat] is not None or missing:
            raise ArgumentError(f"bots needs None at your seat {seat} only and a bot elsewhere")
        self._game = game
        self._bots = list(bots)
        self._seat = seat
        self._console = console if console is not None else Console(highlight=False)
        self._input: InputFunction = input if input is not None else self._console.input
        self._casual = casual
        self._hint: Player | str = HINT_ENGINE if hint is None else hint
        if isinstance(self._hint, str):  # a bad spec fails here, not at the first hint
            engine_for(self._hint, 0, game.observation(seat))
        # The hint at a position follows from the game's seed and the moves played.
        self._names = (
            list(names)
            if names is not None
            else ["you" if s == seat else f"seat {s}" for s in range(players)]
        )
        default = f"skitgubbe-{game.seed}.json" if game.seed is not None else "skitgubbe-game.json"
        # A path given is written to as asked; the default never overwrites another game's
        # record (a replayed seed's): the next free name instead, said at the start.
        self._chosen_path = save_path is not None
        self._default_path = Path(default)
        self._taken: Path | None = None  # the default, when another game holds it
        self._save_path = Path(save_path) if save_path is not None else _fresh_path(Path(default))
        if save_path is None and self._save_path != self._default_path:
            self._taken = self._default_path
        # Who sits at each seat, saved with the record for skitgubbe replay.
        self._seated = [
            "person" if bot is None else type(bot).__name__.removesuffix("Bot").lower()
            for bot in bots
        ]
        self._autosave = autosave
        self._seen = 0  # history events shown to the person so far
        self._turns: list[tuple[int, int]] = []  # (moves played, events seen) at each own move
        self._saved_at: int | None = None  # moves_played at the last save
        self._owned: list[Player] = []  # bots made by new(): closed when run() ends

    @classmethod
    def new(
        cls,
        rules: Rules | None = None,
        *,
        players: int | None = None,
        bots: str | Sequence[str] = ("greedy",),
        seat: int = 0,
        seed: int | None = None,
        casual: bool = False,
        console: Console | None = None,
        input: InputFunction | None = None,
        save_path: str | os.PathLike[str] | None = None,
        autosave: bool = True,
    ) -> PlaySession:
        """A new game against bots named by specs (``"greedy"``, ``"ismcts:iterations=5000"``).

        ``bots`` holds one spec for every other seat, or one spec for all of
        them. The rules default to the classic rules for ``players`` (3). The
        game and the bots follow from ``seed`` (a random one when ``None``).

        >>> session = PlaySession.new(players=4, bots=["random", "greedy", "pimc"], seed=8)
        >>> session.game.players, session.names
        (4, ('you', 'seat 1 · random', 'seat 2 · greedy', 'seat 3 · pimc'))
        """
        if rules is None:
            rules = Rules.classic(players=3 if players is None else players)
        elif players is not None and players != rules.players:
            raise ArgumentError(f"--players {players} does not match the rules' {rules.players}")
        count = rules.players
        _check_seat(seat, count, "--seat")
        specs = [bots] if isinstance(bots, str) else list(bots)
        if len(specs) == 1:
            specs *= count - 1
        if len(specs) != count - 1:
            raise ArgumentError(
                f"give one bot spec for all {count - 1} other seats or one per seat, "
                f"not {len(specs)}"
            )
        if seed is None:
            seed = secrets.randbits(63)  # too many to try: the deal stays unknown
        game = Game.new(rules, seed=seed)
        others = [s for s in range(count) if s != seat]
        players_: list[Player | None] = [None] * count
        names = ["you"] * count
        for other, spec in zip(others, specs, strict=True):
            bot_seed = _bots.blinded_seed(_core.game_seed(seed, other))  # not the deal's
            players_[other] = _bots.make(spec, seed=bot_seed)
            names[other] = f"seat {other} · {spec}"
        session = cls(
            game,
            players_,
            seat,
            console=console,
            input=input,
            casual=casual,
            names=names,
            save_path=save_path,
            autosave=autosave,
        )
        session._owned = [bot for bot in players_ if bot is not None]
        session._seated = [
            "person" if s == seat else spec[:_MAX_SAVED_NAME]
            for s, spec in zip(range(count), [*specs[:seat], "", *specs[seat:]], strict=True)
        ]
        return session

    @property
    def game(self) -> Game:
        """The game being played."""
        return self._game

    @property
    def seat(self) -> int:
        """The person's seat."""
        return self._seat

    @property
    def names(self) -> tuple[str, ...]:
        """The label of each seat on screen."""
        return tuple(self._names)

    @property
    def save_path(self) -> Path:
        """Where ``save`` without a file name writes (and where autosave writes)."""
        return self._save_path

    # -- the loop -----------------------------------------------------------------

    def run(self) -> int:
        """Play until the game ends, the person quits or input ends; returns the exit status.

        >>> import io
        >>> from rich.console import Console
        >>> screen = Console(file=io.StringIO(), force_terminal=False, width=100)
        >>> session = PlaySession.new(seed=2, console=screen, input=lambda p: "quit",
        ...                           autosave=False)
        >>> session.run(), session.game.moves_played
        (0, 0)
        """
        try:
            return self._play()
        finally:
            self._close_bots()

    def _close_bots(self) -> None:
        """End the bots this session made that hold something (an engine's process)."""
        owned, self._owned = self._owned, []
        for bot in owned:
            close = getattr(bot, "close", None)
            if callable(close):
                close()

    def _play(self) -> int:
        self._intro()
        try:
            while True:
                failed = self._bots_play()
                if failed is not None:
                    self._say(failed, "bold red")
                    self._leave()
                    return 1
                if self._game.result is not None:
                    self._finish()
                    return 0
                self._show_turn()
                while True:
                    try:
                        line = self._input("Your move (number, move text, or help): ")
                    except EOFError:
                        self._console.print()
                        self._leave()
                        return 0
                    outcome = self._answer(line)
                    if outcome == "quit":
                        self._leave()
                        return 0
                    if outcome != "stay":
                        break
        except KeyboardInterrupt:
            self._console.print()
            self._leave()
            return 0

    def _print(self, *renderables: RenderableType) -> None:
        self._console.print(*renderables, highlight=False)

    def _say(self, text: str, style: str = "yellow") -> None:
        say(self._console, text, style)

    def _intro(self) -> None:
        game = self._game
        others = ", ".join(escape(self._names[s]) for s in range(game.players) if s != self._seat)
        seed = f" · seed {game.seed}" if game.seed is not None else ""
        self._console.rule(f"Skitgubbe · {game.rules.describe()}{seed}")
        self._print(
            f"You are seat {self._seat}; playing against {others}. "
            f"{'Casual game: undo is allowed. ' if self._casual else ''}"
            "Type [bold]help[/] for the commands."
        )
        if self._autosave and self._taken is not None:
            self._say(
                f"{self._taken} holds another game already: this one is saved to "
                f"{self._save_path}.",
                "default",
            )

    def _bots_play(self) -> str | None:
        """Let the bots move until it is the person's turn or the game is over.

        Returns a message when a bot fails (raises or answers an illegal move).
        """
        game = self._game
        while (to_move := game.to_move) is not None and to_move != self._seat:
            bot = self._bots[to_move]
            assert bot is not None
            try:
                move = bot.choose(game.observation(to_move))
                game.play(move)
            except Exception as exc:  # a bot's failure ends the game, not the program
                return f"The bot at seat {to_move} failed: {type(exc).__name__}: {exc}"
        return None

    def _events_since(self, observation: Observation) -> list[str]:
        lines = narration(observation.history[self._seen :], self._seat)
        if len(lines) > _MAX_EVENT_LINES:
            skipped = len(lines) - _MAX_EVENT_LINES
            lines = [f"[dim]({skipped} earlier events not shown)[/]", *lines[-_MAX_EVENT_LINES:]]
        return lines

    def _show_turn(self) -> None:
        game = self._game
        observation = game.observation(self._seat)
        self._console.rule(f"Move {game.moves_played + 1}")
        lines = self._events_since(observation)
        if lines:
            self._print("[bold]Since your last turn:[/]")
            for line in lines:
                self._print(f"  {line}")
        for part in board(observation, self._names):
            self._print(part)
        self._print(_situation(observation))
        moves = "  ".join(
            f"[bold]{number})[/] {_move_text(move)}"
            for number, move in enumerate(observation.legal_moves, 1)
        )
        self._print(f"Your moves: {moves}")

    def _finish(self) -> None:
        game = self._game
        observation = game.observation(self._seat)
        self._console.rule("Game over")
        for line in self._events_since(observation):
            self._print(f"  {line}")
        self._seen = len(observation.history)
        self._print(f"[bold]{result_line(game, self._seat)}[/]")
        if self._autosave:
            self._save(self._save_path)

    def _leave(self) -> None:
        """Quit (or end of input): save if asked to, say where, and stop."""
        if self._autosave and self._saved_at != self._game.moves_played:
            self._save(self._save_path, leaving=True)
        elif self._saved_at is not None:
            self._say(
                f"Left the game; it was last saved to {self._save_path} after move "
                f"{self._saved_at}.",
                "default",
            )
        else:
            self._say("Left the game; it was not saved.", "default")

    # -- answers ------------------------------------------------------------------

    def _answer(self, line: str) -> _Outcome:
        """Act on one line the person typed; every bad answer is explained."""
        text = line.strip()
        if not text:
            count = len(self._game.legal_moves)
            self._say(
                f"Type the number of a move (1-{count}), the move itself (such as 7h, flip or "
                "pick), or help."
            )
            return "stay"
        word, _, rest = text.partition(" ")
        word = word.lower()
        rest = rest.strip()
        if word in _QUIT_WORDS or word in _HELP_WORDS or word in ("hint", "undo"):
            if rest:
                self._say(f"{word} takes no argument (got {rest!r}).")
                return "stay"
            if word in _QUIT_WORDS:
                return "quit"
            if word in _HELP_WORDS:
                self._help()
                return "stay"
            if word == "hint":
                self._give_hint()
                return "stay"
            return self._undo()
        if word == "save":
            path = Path(os.path.expanduser(rest)) if rest else self._save_path
            self._save(path)
            return "stay"
        legal = self._game.legal_moves
        if re.fullmatch(r"[+-]?[0-9]+", text):
            number = int(text)
            if not 1 <= number <= len(legal):
                self._say(f"There is no move {number}: choose a number from 1 to {len(legal)}.")
                return "stay"
            return self._move(legal[number - 1])
        try:
            move = Move.parse(text)
        except ParseError as exc:
            if text.isalpha() and len(text) > 2:
                self._say(
                    f"Unknown command {text!r}. Commands: {', '.join(_COMMANDS)}; "
                    "or answer with a move number or move text (help lists them)."
                )
            else:
                self._say(f"{capital(str(exc))}.")
            return "stay"
        if move.kind is MoveKind.PLAY and move not in legal:
            # In a slough window, "7h" means "slough 7h".
            slough = Move.slough(*move.cards)
            if slough in legal:
                move = slough
        return self._move(move)

    def _move(self, move: Move) -> _Outcome:
        game = self._game
        before = (game.moves_played, self._seen)
        seen = len(game.observation(self._seat).history)
        try:
            game.play(move)
        except IllegalMoveError as exc:
            self._say(f"You cannot play that: {exc.reason}.")
            shown = ", ".join(f"{n}) {m}" for n, m in enumerate(exc.legal_moves, 1))
            self._say(f"Legal now: {shown}.")
            return "stay"
        self._turns.append(before)
        self._seen = seen
        return "moved"

    def _undo(self) -> _Outcome:
        if not self._casual:
            self._say("Undo is only for casual games: start one with skitgubbe play --casual.")
            return "stay"
        if not self._turns:
            self._say("There is nothing to undo: you have not moved yet.")
            return "stay"
        moves, seen = self._turns.pop()
        game = self._game
        taken = game.moves_played - moves
        while game.moves_played > moves:
            game.undo()
        self._seen = seen
        bots = taken - 1
        self._say(
            f"Took back your move{f' and {bots} bot move' if bots else ''}"
            f"{'s' if bots > 1 else ''}.",
            "green",
        )
        return "undone"

    def _give_hint(self) -> None:
        observation = self._game.observation(self._seat)
        legal = observation.legal_moves
        if len(legal) == 1:
            self._print(f"Hint: there is only one move: [bold]1)[/] {_move_text(legal[0])}")
            return
        hint = self._hint
        if not isinstance(hint, (str, _bots.ISMCTSBot, _bots.PIMCBot)):
            move = hint.choose(observation)
            name = type(hint).__name__.removesuffix("Bot").lower()
            number = legal.index(move) + 1 if move in legal else "?"
            self._print(f"Hint: {name} would play [bold]{number})[/] {_move_text(move)}")
            return
        # Seeded from the position as the person sees it, as skitgubbe analyse seeds each
        # decision: the hint and the game's review weigh a position alike.
        result = analyse_position(observation, hint, position_seed(observation))
        if isinstance(hint, str):
            name = re.split(r"[:\[]", hint.strip(), maxsplit=1)[0].lower()
        else:
            name = type(hint).__name__.removesuffix("Bot").lower()
        best = result.best.move
        self._print(f"Hint: {name} would play [bold]{legal.index(best) + 1})[/] {_move_text(best)}")
        self._print(
            "Your chance of ending as the skitgubbe after each move "
            f"({result.iterations} simulations, {result.seconds:.2f} s):"
        )
        table = Table.grid(padding=(0, 2))
        for justify in ("left", "right", "right", "left"):
            table.add_column(justify=justify)
        for estimate in result.estimates:
            table.add_row(
                f"  [bold]{legal.index(estimate.move) + 1})[/] {_move_text(estimate.move)}",
                f"{100 * estimate.loss:5.1f} % ± {100 * estimate.error:.1f}",
                f"[dim]{estimate.visits} simulations[/]",
                "[green]best[/]" if estimate.move == best else "",
            )
        self._print(table)
        why = explain_choice(result)
        if why is not None:  # the choice is not the lowest estimate: say why
            self._print(f"[dim]{escape(why)}[/]")

    def _save(self, path: Path, *, leaving: bool = False) -> None:
        if path == self._save_path and not self._chosen_path and self._saved_at is None:
            # Written meanwhile by another game: not over it either.
            free = _fresh_path(self._default_path) if path.exists() else path
            if free != path:
                self._say(f"{path} holds another game: saving to {free} instead.", "default")
                path = free
        record = {**self._game.record(), "names": list(self._seated)}
        text = json.dumps(record, ensure_ascii=False) + "\n"
        temporary = path.with_name(path.name + ".tmp")
        try:
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, path)  # never half a record
        except OSError as exc:
            goes_on = "" if self._game.result is not None or leaving else " The game goes on."
            self._say(f"Cannot save to {path}: {exc.strerror or exc}.{goes_on}")
            return
        self._save_path = path
        self._saved_at = self._game.moves_played
        self._say(f"Saved the game to {path} (replay it with: skitgubbe replay {path}).", "green")

    def _help(self) -> None:
        lines = [
            "[bold]Answer[/] with the number of a move from the list, or with the move itself:",
            "  7h   one card        7h 8h 9h   several cards (where the rules allow)",
            "  flip   try your luck: play the top stock card",
            "  pick   pick up from the table (phase 2)",
            "  slough 7h   throw cards of ranks in a won trick (7h alone works too)   pass",
            "[bold]Commands[/]",
            "  hint          your moves with each one's chance of ending as the skitgubbe, by a",
            "                quick ISMCTS search that sees what you see, and the move it prefers",
            "  undo          take back your last move and the bots' moves after it"
            + ("" if self._casual else " (casual games only: play --casual)"),
            "  save \\[FILE]   write the game record as JSON "
            f"(default {escape(str(self._save_path))})",
            "  quit          leave the game" + (" (it is saved first)" if self._autosave else ""),
            "  help          this text",
        ]
        for line in lines:
            self._print(line)
