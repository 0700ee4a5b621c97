"""Bots by name: ``make("greedy")``, ``make("pimc:worlds=32", seed=1)``.

Tools (the arena, the command line) name bots with short specs: a registered
name, optionally followed by ``:`` and comma-separated ``key=value`` options
that become keyword arguments of the bot's factory (ints, floats, ``true``/
``false`` and plain words are understood). A bot in a process of its own, a
program speaking the engine protocol, is named ``cmd:COMMAND`` (see
:mod:`skitgubbe.bots.command`): ``make("cmd:./mybot")`` starts it.

>>> from skitgubbe import bots
>>> bots.make("random", seed=3)
RandomBot(seed=3)
>>> "random" in bots.available()
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from ..errors import ArgumentError, ArgumentTypeError
from ..game.observation import Observation
from . import _specs, command

if TYPE_CHECKING:
    from ..play.players import Player

__all__ = ["BotFactory", "available", "factory", "make", "parse_spec", "register"]

BotFactory: TypeAlias = "Callable[..., Player]"
"""Makes a bot from keyword options; it must accept ``seed=`` (an int or None)."""

_FACTORIES: dict[str, BotFactory] = {}

_NO_SEED: Final = (
    "seeds are never part of a spec: the tool that makes the bot gives it its seed (the "
    "commands, arena, sprt, ladder, session and play, derive one per game and seat from "
    "their --seed; in Python, bots.make(spec, seed=...))"
)
"""Why a bot spec may not hold a ``seed=`` option, and where a bot's seed comes from."""


def register(name: str, factory: BotFactory) -> None:
    """Register ``factory`` under ``name`` (replacing any earlier one).

    >>> from skitgubbe import bots
    >>> class Lowest:
    ...     def __init__(self, seed: int | None = None) -> None:
    ...         pass
    ...     def choose(self, view):
    ...         return view.legal_moves[0]
    >>> bots.register("lowest", Lowest)
    >>> type(bots.make("lowest")).__name__
    'Lowest'
    """
    if not isinstance(name, str):
        raise ArgumentTypeError(f"a bot name is letters, digits, '-' and '_', not {name!r}")
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise ArgumentError(f"a bot name is letters, digits, '-' and '_', not {name!r}")
    _FACTORIES[name.lower()] = factory


def available() -> tuple[str, ...]:
    """The registered bot names, sorted.

    >>> from skitgubbe import bots
    >>> "random" in bots.available()
    True
    """
    return tuple(sorted(_FACTORIES))


def check_turn(observation: Observation) -> None:
    """Refuse an observation that is not its seat's turn (a bot decides on its own turn).

    The view of another seat's turn hides that seat's hand, so a bot asked to
    move from it has nothing sound to decide on.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(sg.Rules.classic(players=3), seed=1)
    >>> check_turn(game.observation(game.to_move))
    >>> check_turn(game.observation((game.to_move + 1) % 3))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: seat ... is asked to move, but seat ... is to move
    """
    if not observation.my_turn:
        raise ArgumentError(
            f"seat {observation.seat} is asked to move, but seat {observation.to_move} is to move"
        )


def factory(name: str) -> BotFactory:
    """The factory registered under ``name``.

    >>> from skitgubbe import bots
    >>> bots.factory("random").__name__
    'RandomBot'
    """
    found = _FACTORIES.get(name.lower())
    if found is None:
        raise ArgumentError(f"no bot named {name!r}; known bots: {', '.join(available())}")
    return found


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a bot spec into its name and options.

    An engine spec (``cmd:COMMAND`` or ``cmd[OPTIONS]:COMMAND``, see
    :mod:`skitgubbe.bots.command`) is the bot ``cmd`` with its command as the
    option ``command``.

    >>> parse_spec("pimc:worlds=32,rollouts=4")
    ('pimc', {'worlds': 32, 'rollouts': 4})
    >>> parse_spec("cmd[move_time=1]:node bot.js")
    ('cmd', {'move_time': 1, 'command': 'node bot.js'})

    A seed is never part of a spec (the error says where seeds come from):

    >>> parse_spec("greedy:seed=1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: bot spec 'greedy:seed=1': seeds are never part of a spec: ...
    """
    if not isinstance(spec, str):
        raise ArgumentTypeError(f"a bot spec is a name such as 'greedy', not {spec!r}")
    if not spec.strip():
        raise ArgumentError(f"a bot spec is a name such as 'greedy', not {spec!r}")
    engine = command.is_engine_spec(spec)
    if engine:
        options_text, command_text = command._split(spec)
    else:
        name, _, options_text = spec.strip().partition(":")
    options = _specs.options(options_text, spec)
    if any(key.lower() == "seed" for key in options):
        raise ArgumentError(f"bot spec {spec!r}: {_NO_SEED}")
    if engine:
        return "cmd", {**options, "command": command_text.strip()}
    return name.strip().lower(), options


def make(spec: str, *, seed: int | None = None) -> Player:
    """The bot ``spec`` names, seeded with ``seed``.

    The bot is made here, so its own checks of its options run at once: a tool
    that makes its bots from specs (the arena, the command line) refuses a bad
    one before it plays.

    >>> from skitgubbe import bots
    >>> bots.make("nobody")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: no bot named 'nobody'; known bots: ...
    >>> bots.make("ismcts:exploration=nan")
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: exploration must be a finite number >= 0, not nan
    """
    name, options = parse_spec(spec)
    make_bot = factory(name)
    try:
        return make_bot(seed=seed, **options)
    except ArgumentTypeError:
        raise  # the bot's own check of an option's type names the option
    except TypeError as exc:  # an option the factory does not take
        raise ArgumentError(f"bad options for bot {name!r} in {spec!r}: {exc}") from exc
