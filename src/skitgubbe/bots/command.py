"""Bots out of process, named by spec: ``cmd:./mybot``, ``cmd[move_time=1]:node bot.js``.

An **engine spec** names a program that plays through the engine protocol
(``docs/protocol.md``), wherever a bot spec is taken: :func:`skitgubbe.bots.make`,
the arena, ``skitgubbe play``, sessions. It is ``cmd:`` and the command line
(split like a shell's words, with :func:`shlex.split`; nothing is run through a
shell), optionally with options in brackets after ``cmd``:
``cmd[key=value,...]:COMMAND``. The keys the referee keeps for itself are
:data:`REFEREE_KEYS` (the clock, the resource limits, a display ``name``); every
other key is an option of the engine's own, sent with ``set_option`` and checked
against what the engine declares. A bot's seed is not part of its spec: the tool
that makes the bot gives it, and an engine that declares a ``seed`` option is
sent it before each game.

:class:`BotPool` makes bots from specs game after game, as the arena and
sessions do, and keeps each engine's process running from one game to the next.

>>> from skitgubbe.bots import EngineSpec
>>> spec = EngineSpec.parse("cmd[move_time=0.5,memory=256M,style=high]:node bots/low.js")
>>> spec.command, spec.options, spec.settings["move_time"], spec.settings["limits"].memory
(('node', 'bots/low.js'), {'style': 'high'}, 0.5, 268435456)
>>> EngineSpec.parse("cmd:")  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
skitgubbe.errors.ArgumentError: engine spec 'cmd:' has no command: give one after 'cmd:', ...
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import attrs

from ..errors import ArgumentError, ArgumentTypeError
from . import _specs

if TYPE_CHECKING:
    from ..engine import EnginePlayer
    from ..play.players import Player

__all__ = ["REFEREE_KEYS", "BotPool", "EngineSpec", "blinded_seed", "is_engine_spec"]

REFEREE_KEYS: Final = (
    "move_time",
    "game_time",
    "increment",
    "grace",
    "handshake_time",
    "memory",
    "cpu_time",
    "open_files",
    "name",
    "user",
    "group",
)
"""The options of an engine spec that are the referee's, not the engine's:
:class:`~skitgubbe.engine.EnginePlayer`'s clock (``move_time``, ``game_time``,
``increment``, ``grace``, ``handshake_time``, in seconds), its
:class:`~skitgubbe.engine.Limits` (``memory`` in bytes or with a ``K``, ``M`` or
``G`` suffix, ``cpu_time`` in seconds, ``open_files``), ``name``, and the
``user`` and ``group`` the engine runs as."""

_LIMIT_KEYS: Final = ("memory", "cpu_time", "open_files")
_UNITS: Final = {"k": 2**10, "m": 2**20, "g": 2**30}


def blinded_seed(seed: int) -> int:
    """The seed a bot is given for the seed ``seed`` the tools derive for it: a one-way
    hash (BLAKE2b, 64 bits), the same in every process.

    The tools derive a bot's seed from the deal's (``game_seed`` is a bijection, so
    it could be worked back); the bot gets this hash of it instead, from which
    neither the deal nor the match seed can be found. :class:`BotPool`, the arena
    and ``skitgubbe play`` give every bot, in process or not, its blinded seed.

    >>> from skitgubbe.bots import blinded_seed
    >>> blinded_seed(1) == blinded_seed(1) != blinded_seed(2)
    True
    >>> 0 <= blinded_seed(2**64 - 1) < 2**64
    True
    """
    if type(seed) is not int or not 0 <= seed < 2**64:
        raise ArgumentError(f"a seed is an int 0 <= seed < 2**64, not {seed!r}")
    digest = hashlib.blake2b(seed.to_bytes(8, "little"), digest_size=8, person=_PERSON)
    return int.from_bytes(digest.digest(), "little")


_PERSON: Final = b"skitgubbe-bot"


def is_engine_spec(spec: object) -> bool:
    """Whether ``spec`` names an engine (``cmd:...`` or ``cmd[...]:...``).

    >>> from skitgubbe.bots import is_engine_spec
    >>> [is_engine_spec(s) for s in ("cmd:./mybot", "cmd[move_time=1]:./b", "greedy")]
    [True, True, False]
    """
    return isinstance(spec, str) and spec.lstrip()[:4].lower() in ("cmd:", "cmd[")


def _bytes(value: object, spec: str) -> object:
    """``memory=512M`` as a number of bytes; other values as they are (Limits checks)."""
    if isinstance(value, str) and value[-1:].lower() in _UNITS:
        number = _specs.value(value[:-1])
        if isinstance(number, int | float) and not isinstance(number, bool):
            return int(number * _UNITS[value[-1].lower()])
    if isinstance(value, str):
        raise ArgumentError(
            f"memory in {spec!r} is a number of bytes, optionally with K, M or G, not {value!r}"
        )
    return value


def _split(spec: str) -> tuple[str, str]:
    """(the options' text, the command's text) of an engine spec."""
    text = spec.strip()
    rest = text[3:]
    if rest.startswith("["):
        end = rest.find("]:")
        if end < 0:
            raise ArgumentError(
                f"engine spec {spec!r}: options go in brackets before the colon, "
                "e.g. 'cmd[move_time=1]:./mybot'"
            )
        return rest[1:end], rest[end + 2 :]
    return "", rest[1:]


@attrs.frozen
class EngineSpec:
    """What an engine spec says: the ``command`` (argv), the engine's own
    ``options`` (sent with ``set_option``), the referee's ``settings``
    (:class:`~skitgubbe.engine.EnginePlayer`'s keyword arguments, with
    ``limits`` a :class:`~skitgubbe.engine.Limits`) and the environment ``env``
    of the process (``None``: this process's).

    >>> from skitgubbe.bots import EngineSpec
    >>> EngineSpec.parse("cmd:./lowbot --fast").command
    ('./lowbot', '--fast')
    """

    command: tuple[str, ...]
    options: Mapping[str, Any] = attrs.field(factory=dict)
    settings: Mapping[str, Any] = attrs.field(factory=dict)
    env: Mapping[str, str] | None = None

    @classmethod
    def parse(cls, spec: str) -> EngineSpec:
        """Read an engine spec (see the module); a bad one is an
        :class:`~skitgubbe.ArgumentError` naming what is wrong.

        >>> from skitgubbe.bots import EngineSpec
        >>> EngineSpec.parse("cmd[seed=3]:./b")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: engine spec 'cmd[seed=3]:./b': the seed is not part of ...
        >>> EngineSpec.parse("cmd:'./my bot")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: engine spec "cmd:'./my bot": bad command: No closing ...
        """
        if not isinstance(spec, str):
            raise ArgumentTypeError(f"an engine spec is a str such as 'cmd:./mybot', not {spec!r}")
        if not is_engine_spec(spec):
            raise ArgumentError(f"an engine spec begins with 'cmd:' or 'cmd[', not {spec!r}")
        options_text, command_text = _split(spec)
        try:
            command = tuple(shlex.split(command_text))
        except ValueError as error:
            raise ArgumentError(f"engine spec {spec!r}: bad command: {error}") from None
        if not command:
            raise ArgumentError(
                f"engine spec {spec!r} has no command: give one after 'cmd:', e.g. 'cmd:./mybot'"
            )
        return cls.of_options(command, _specs.options(options_text, spec), spec)

    @classmethod
    def of_options(
        cls, command: Sequence[str], given: Mapping[str, Any], spec: str = "cmd"
    ) -> EngineSpec:
        """The engine spec of ``command`` with the options ``given``, shared out between
        the referee (:data:`REFEREE_KEYS`) and the engine; ``spec`` names it in errors.

        >>> from skitgubbe.bots import EngineSpec
        >>> EngineSpec.of_options(["./b"], {"move_time": 1, "depth": 3}).settings
        {'move_time': 1}
        """
        if "seed" in given:
            raise ArgumentError(
                f"engine spec {spec!r}: the seed is not part of a spec; the tool that makes "
                "the bot gives it"
            )
        options = {key: value for key, value in given.items() if key not in REFEREE_KEYS}
        settings = {key: value for key, value in given.items() if key in REFEREE_KEYS}
        if "memory" in settings:
            settings["memory"] = _bytes(settings["memory"], spec)
        if "name" in settings:  # user and group stay as read: a name or a number
            settings["name"] = str(settings["name"])
        limits = {key: settings.pop(key) for key in _LIMIT_KEYS if key in settings}
        if limits:
            from ..engine import Limits  # loads subprocess machinery: only when asked

            settings["limits"] = Limits(**limits)
        return cls(tuple(command), options, settings)

    @classmethod
    def of_bot(cls, spec: str) -> EngineSpec:
        """The engine that plays the registered bot ``spec`` in a process of its own:
        ``python -m skitgubbe engine SPEC`` for a built-in bot, ``module:Name`` (its
        options sent with ``set_option``) for a module-level class or function
        registered by you. The process imports from this process's ``sys.path``.

        >>> from skitgubbe.bots import EngineSpec
        >>> EngineSpec.of_bot("pimc:worlds=8").command[1:]
        ('-m', 'skitgubbe', 'engine', 'pimc:worlds=8')
        """
        from . import registry

        name, options = registry.parse_spec(spec)
        factory = registry.factory(name)
        path = os.pathsep.join(entry or os.getcwd() for entry in sys.path)
        env = {**os.environ, "PYTHONPATH": path}
        from . import BUILTIN_BOTS

        if factory is BUILTIN_BOTS.get(name):  # the child's registry has it too
            return cls((sys.executable, "-m", "skitgubbe", "engine", spec.strip()), env=env)
        where = _importable(factory, spec)
        return cls((sys.executable, "-m", "skitgubbe", "engine", where), dict(options), env=env)

    def player(self, *, seed: int | None = None, move_time: float | None = None) -> EnginePlayer:
        """Start the engine: an :class:`~skitgubbe.engine.EnginePlayer` with this
        spec's options and settings; ``move_time`` tightens the spec's own (the
        smaller wins), ``seed`` is sent if the engine declares a ``seed`` option.

        >>> import sys
        >>> from skitgubbe.bots import EngineSpec
        >>> spec = EngineSpec((sys.executable, "-m", "skitgubbe", "engine", "random"))
        >>> with spec.player(seed=4, move_time=2) as engine:
        ...     engine.name, engine.move_time
        ('random', 2.0)
        """
        from ..engine import EnginePlayer

        settings = dict(self.settings)
        if move_time is not None:
            own = settings.get("move_time")
            if isinstance(own, int | float) and not isinstance(own, bool):
                move_time = min(own, move_time)
            settings["move_time"] = move_time
        player = EnginePlayer(self.command, options=self.options, env=self.env, **settings)
        try:
            _reseed(player, seed)
        except BaseException:
            player.close()
            raise
        return player


def _importable(factory: object, spec: str) -> str:
    """``module:Name`` (or ``file.py:Name``) under which a process of its own finds ``factory``."""
    module = getattr(factory, "__module__", None)
    name = getattr(factory, "__qualname__", "")
    if not isinstance(module, str) or not name or "<" in name or "." in name:
        raise ArgumentError(
            f"bot {spec!r} cannot run in a process of its own: its factory {factory!r} is not "
            "a module-level class or function"
        )
    if module == "__main__":
        main = getattr(sys.modules.get("__main__"), "__file__", None)
        if not isinstance(main, str) or not main.endswith(".py"):
            raise ArgumentError(
                f"bot {spec!r} cannot run in a process of its own: it is defined in __main__, "
                "which has no .py file; define it in a module"
            )
        return f"{os.path.abspath(main)}:{name}"
    return f"{module}:{name}"


def _reseed(player: EnginePlayer, seed: int | None) -> None:
    if seed is not None and player.id is not None and player.id.option("seed") is not None:
        player.set_option("seed", seed)


def engine_bot(seed: int | None = None, *, command: str = "", **options: Any) -> EnginePlayer:
    """The factory registered as ``cmd``: :func:`skitgubbe.bots.make` gives it a parsed
    engine spec's command and options (so ``make("cmd:./mybot", seed=1)`` works).

    >>> import sys
    >>> from skitgubbe.bots.command import engine_bot
    >>> with engine_bot(command=f"{sys.executable} -m skitgubbe engine greedy") as engine:
    ...     engine.id.name
    'greedy'
    """
    if not isinstance(command, str) or not command.strip():
        raise ArgumentError("an engine bot needs a command, e.g. 'cmd:./mybot'")
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise ArgumentError(f"engine command {command!r}: {error}") from None
    return EngineSpec.of_options(argv, options, f"cmd:{command}").player(seed=seed)


class BotPool:
    """Makes bots from specs, game after game, keeping engines running in between.

    :meth:`make` gives an in-process bot for a registered spec (made fresh, as
    :func:`skitgubbe.bots.make` does) and an
    :class:`~skitgubbe.engine.EnginePlayer` for an engine spec — or for every spec
    with ``isolate=True`` (the registered bot served by ``skitgubbe engine`` in a
    process of its own, :meth:`EngineSpec.of_bot`). Either way the bot is given
    :func:`blinded_seed` of ``seed``, never ``seed`` itself. Engines are kept by
    (spec, ``slot``): the same engine plays that spec's copy number ``slot`` in
    every game, and is sent the game's blinded seed before it (where it declares
    a ``seed`` option), so a seeded engine plays each game as the same bot in
    process would. An engine that failed is started again for the next game.
    ``move_time`` caps every engine's time per move; ``specs`` gives the
    :class:`EngineSpec` of specs played out of process beforehand (made where the
    bots are registered, say). :meth:`close` (or ``with``) ends the engines.

    >>> import sys
    >>> import skitgubbe as sg
    >>> from skitgubbe.bots import BotPool
    >>> with BotPool(isolate=True) as pool:
    ...     results = []
    ...     for game in range(2):
    ...         lineup = [pool.make("greedy", seed=game, slot=s) for s in range(2)]
    ...         results.append(sg.play_game(lineup, seed=game))
    ...     len(pool.engines)
    2
    >>> results == [sg.play_game([sg.bots.GreedyBot()] * 2, seed=game) for game in range(2)]
    True
    """

    def __init__(
        self,
        *,
        move_time: float | None = None,
        isolate: bool = False,
        specs: Mapping[str, EngineSpec] | None = None,
    ) -> None:
        if type(isolate) is not bool:
            raise ArgumentTypeError(f"isolate must be True or False, not {isolate!r}")
        self.move_time = move_time
        self.isolate = isolate
        self._specs: dict[str, EngineSpec] = dict(specs or {})
        self._engines: dict[tuple[str, int], EnginePlayer] = {}

    def out_of_process(self, spec: str) -> bool:
        """Whether :meth:`make` plays ``spec`` in an engine process.

        >>> from skitgubbe.bots import BotPool
        >>> BotPool().out_of_process("greedy"), BotPool(isolate=True).out_of_process("greedy")
        (False, True)
        """
        return self.isolate or spec in self._specs or is_engine_spec(spec)

    def spec(self, spec: str) -> EngineSpec:
        """The :class:`EngineSpec` that plays ``spec`` (read once, then kept).

        >>> from skitgubbe.bots import BotPool
        >>> BotPool().spec("cmd:./lowbot").command
        ('./lowbot',)
        """
        found = self._specs.get(spec)
        if found is None:
            found = EngineSpec.parse(spec) if is_engine_spec(spec) else EngineSpec.of_bot(spec)
            self._specs[spec] = found
        return found

    def owns(self, player: object) -> bool:
        """Whether ``player`` is one of this pool's engines.

        >>> from skitgubbe.bots import BotPool
        >>> BotPool().owns(object())
        False
        """
        return any(engine is player for engine in self._engines.values())

    @property
    def engines(self) -> tuple[EnginePlayer, ...]:
        """The engines made so far and not closed."""
        return tuple(self._engines.values())

    def start(self, spec: str, *, slot: int = 0) -> EnginePlayer:
        """The engine for (``spec``, ``slot``), started and past its handshake (a new one,
        or the kept one, started again if a fault ended it), with no seed sent yet.

        >>> import sys
        >>> from skitgubbe.bots import BotPool
        >>> with BotPool() as pool:
        ...     engine = pool.start(f"cmd:{sys.executable} -m skitgubbe engine greedy")
        ...     engine.running
        True
        """
        key = (spec, slot)
        engine = self._engines.get(key)
        if engine is None:
            engine = self.spec(spec).player(move_time=self.move_time)
            self._engines[key] = engine
        else:
            engine.start()
        return engine

    def make(self, spec: str, *, seed: int | None = None, slot: int = 0) -> Player:
        """The bot ``spec`` names for the next game (see the class), seeded with ``seed``.

        >>> from skitgubbe.bots import BotPool, blinded_seed
        >>> BotPool().make("random", seed=2).seed == blinded_seed(2)
        True
        """
        given = None if seed is None else blinded_seed(seed)
        if not self.out_of_process(spec):
            from . import registry

            return registry.make(spec, seed=given)
        engine = self.start(spec, slot=slot)
        _reseed(engine, given)
        return engine

    def close(self) -> None:
        """End every engine (``quit``, then a kill of what is left). Idempotent.

        >>> from skitgubbe.bots import BotPool
        >>> pool = BotPool()
        >>> pool.close(), pool.engines
        (None, ())
        """
        engines, self._engines = self._engines, {}
        for engine in engines.values():
            engine.close()

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<BotPool {len(self._engines)} engines{', isolated' if self.isolate else ''}>"
