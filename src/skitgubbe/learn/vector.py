"""A vector environment: many games stepped in C by one call, for learners.

``VectorEnv(n)`` holds ``n`` games. Each seat is a learner (it acts through
:meth:`VectorEnv.step`) or a built-in player (``"random"`` or ``"greedy"``)
that moves inside the step, in C. After each step every game's learner to move
has its tensor (:mod:`skitgubbe.game.tensors`) and action mask
(:mod:`skitgubbe.game.actions`) written into arrays the environment owns and
overwrites at each step (copy what you keep). A game that ends reports each
seat's reward — the skitgubbe pays every other player 1: ``-(players - 1)`` for
him, ``+1`` for the others, 0 for all when the move cap ends the game — and is
dealt again at once: the observation is then the new game's first. The call
releases the GIL; no Python object is made per game or per step.

Every array the environment hands out (observations, masks, rewards, the
``terminated``, ``truncated`` and ``info`` arrays, :meth:`VectorEnv.sample_actions`)
is a numpy view of a buffer that its C core allocated and never moves: the view
does not own its data, so numpy refuses to resize it (``refcheck=False`` too),
and the memory the core writes into can be neither freed nor moved under it.

Every game has a number, ``info["game"]``: it tells the game apart from the
others and nothing of its cards (it is a count, which a learner could keep
itself). The seed that deals it, and so every hand in it, is privileged:
:meth:`VectorEnv.privileged_seed` gives it to whoever holds the environment, to
replay a game with ``Game.new(rules, seed=...)``; keep it from the players.

One environment serves one thread at a time: a call made while another call
is inside it raises :class:`~skitgubbe.ConcurrentUseError` and changes nothing.
Give each thread its own environment.

A random-play loop picks its actions in C with :meth:`VectorEnv.sample_actions`
(uniformly among each game's legal actions, as picking from the masks with
numpy does, without a Python call per game):

>>> import numpy, skitgubbe as sg
>>> env = VectorEnv(4, sg.Rules.classic(3), opponents="random", seed=1)
>>> obs, info = env.reset()
>>> obs.shape, info["action_mask"].shape, info["seat"].tolist()
((4, 1359), (4, 563), [0, 0, 0, 0])
>>> for _ in range(200):
...     obs, rewards, terminated, truncated, info = env.step(env.sample_actions())
>>> rewards.shape
(4, 3)
>>> obs.flags.owndata, obs.base is not None
(False, True)
>>> obs.resize((1, 1), refcheck=False)
Traceback (most recent call last):
    ...
ValueError: cannot resize this array: it does not own its data

A learner picks its own, from the masks:

>>> rng = numpy.random.default_rng(0)
>>> actions = [rng.choice(numpy.flatnonzero(mask)) for mask in info["action_mask"]]
>>> obs, rewards, terminated, truncated, info = env.step(actions)
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from .. import _core
from .._text import brief
from ..errors import ArgumentError, ArgumentTypeError, ConcurrentUseError, IllegalActionError
from ..game.actions import NUM_ACTIONS, describe
from ..game.rules import Rules
from ..game.tensors import import_numpy

if TYPE_CHECKING:
    from ..bots.policy import Rollout

T = TypeVar("T")

__all__ = ["VectorEnv"]

_POLICIES: Final = {"random": 0, "greedy": 1}


class VectorEnv:
    """``n_games`` games of ``rules`` stepped together in C (see the module).

    ``learners`` are the seats that act through :meth:`step` (default: seat
    0), or ``"all"`` for self-play; every other seat is played by
    ``opponents``: ``"random"``, ``"greedy"``, a rollout policy of your own
    (:mod:`skitgubbe.bots.policy`: a C function, ``"file.c[:function]"``,
    ``"module:function"`` or a callable), or one of those per seat. A policy
    of your own plays from what its seat knows: a world sampled from the
    seat's view, never the real game; one that fails raises
    :class:`~skitgubbe.PolicyError` and the step changes nothing. ``seed``
    fixes every deal, every built-in player's choice and every
    :meth:`sample_actions` draw; it is privileged (it deals every game):
    keep it from the players, and draw it from a large space (such as
    ``secrets.randbits(64)``) where a player could try small seeds against
    its own hand.

    >>> import skitgubbe as sg
    >>> env = VectorEnv(2, sg.Rules.modern(4), learners="all", seed=3)
    >>> obs, info = env.reset()
    >>> env.players, env.learners, info["seat"].tolist()
    (4, (0, 1, 2, 3), [0, 0])
    """

    def __init__(
        self,
        n_games: int,
        rules: Rules | str | None = None,
        *,
        opponents: object = "random",
        learners: Sequence[int] | str = (0,),
        seed: int = 0,
    ) -> None:
        numpy = import_numpy()
        if type(n_games) is not int:
            raise ArgumentTypeError(f"n_games must be an int, not {brief(n_games)}")
        if not 1 <= n_games <= 2**24:
            raise ArgumentError(f"n_games must be 1 .. 2**24, not {n_games}")
        if rules is None:
            rules = Rules.classic()
        elif isinstance(rules, str):
            rules = Rules.preset(rules)
        elif not isinstance(rules, Rules):
            raise ArgumentTypeError(f"rules must be a Rules or a preset name, not {brief(rules)}")
        if type(seed) is not int or not 0 <= seed < 2**64:
            raise ArgumentError(f"seed must be an int 0 <= seed < 2**64, not {brief(seed)}")
        players = rules.players
        seats = _learners(learners, players)
        policies, custom = _policies(opponents, seats, players)
        self._rules = rules
        self._learners = seats
        self._seed = seed
        self._lock = threading.Lock()
        self._dealt = False
        self._core = _core.VecCore(rules._core_values(), n_games, seed, policies)
        # Views of the core's own buffers, which never move: none of these arrays owns its
        # data, so numpy refuses to resize one (refcheck=False too) under the C writer.
        self._obs = numpy.asarray(self._core.obs)
        self._masks = numpy.asarray(self._core.masks)
        self._rewards = numpy.asarray(self._core.rewards)
        self._terminated = numpy.asarray(self._core.terminated)
        self._truncated = numpy.asarray(self._core.truncated)
        self._seat = numpy.asarray(self._core.seat)
        self._games = numpy.asarray(self._core.games)
        self._actions = numpy.asarray(self._core.actions)
        self._sampled = numpy.asarray(self._core.sampled)
        self._custom = custom
        for seat, rollout in custom.items():
            self._core.set_policy(seat, rollout.arguments()[1])
        self._info = {
            "action_mask": self._masks.view(numpy.bool_),
            "seat": self._seat,
            "game": self._games,
        }

    @contextmanager
    def _calling(self) -> Iterator[None]:
        """The environment for one call, or :class:`~skitgubbe.ConcurrentUseError` if a
        call is already inside it (the C core's own guard also covers the core alone)."""
        if not self._lock.acquire(blocking=False):
            raise ConcurrentUseError(_core.VEC_IN_USE)
        try:
            yield
        finally:
            self._lock.release()

    def _policy_call(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)``; a seat's policy of the caller's own that failed is a
        :class:`~skitgubbe.PolicyError` naming it."""
        try:
            return call(*args)
        except _core.SearchPolicyError as failure:
            rollout = self._custom[failure.seat]
            error = rollout.failure(failure)
            text = str(error).replace("the search stopped", "the step changed nothing")
            raise type(error)(f"seat {failure.seat}: {text}", error.policy) from failure.__cause__

    @property
    def n_games(self) -> int:
        """How many games are stepped together."""
        return int(self._core.n_games)

    @property
    def players(self) -> int:
        """Players per game."""
        return self._rules.players

    @property
    def rules(self) -> Rules:
        """The rules of every game."""
        return self._rules

    @property
    def learners(self) -> tuple[int, ...]:
        """The seats that act through :meth:`step`."""
        return self._learners

    def reset(self) -> tuple[Any, dict[str, Any]]:
        """Deal every game afresh; returns (observations, info).

        ``info["action_mask"]`` (bool, one row per game), ``info["seat"]`` (the
        learner seat to move) and ``info["game"]`` (each game's number: nothing
        of its cards; see :meth:`privileged_seed`). The same seed deals the
        same games again, and :meth:`sample_actions` draws the same again.

        >>> env = VectorEnv(3, seed=5)
        >>> obs, info = env.reset()
        >>> bool(info["action_mask"].any(axis=1).all()), info["game"].tolist()
        (True, [0, 1, 2])
        """
        with self._calling():
            self._dealt = False
            self._policy_call(self._core.reset)
            self._dealt = True
        return self._obs, self._info

    def privileged_seed(self, game: int) -> int:
        """The seed that deals game number ``game`` (an ``info["game"]`` value).

        Privileged: ``Game.new(rules, seed=...)`` of it deals every hand of
        that game, so it is for replaying and checking games, never for a
        player (as :meth:`Game.state_tensor <skitgubbe.Game.state_tensor>`).

        >>> import skitgubbe as sg
        >>> env = VectorEnv(2, sg.Rules.classic(3), seed=5)
        >>> obs, info = env.reset()
        >>> game = sg.Game.new(env.rules, seed=env.privileged_seed(info["game"][1]))
        >>> bool((game.observation(0).tensor() == obs[1]).all())
        True
        """
        try:
            number = operator.index(game)  # an int, or numpy's (an info["game"] item)
        except TypeError:
            number = -1
        if isinstance(game, bool) or not 0 <= number < 2**64:
            raise ArgumentError(f"game must be a game number (info['game']), not {brief(game)}")
        return int(_core.game_seed(self._seed, number))

    def sample_actions(self) -> Any:
        """A uniformly random legal action for every game's learner to move, drawn in C.

        The same as picking uniformly from each row of ``info["action_mask"]``,
        without the GIL and without a Python call per game, so that a
        random-play loop runs at the environment's speed. Each game slot draws
        from a generator of its own, seeded from ``seed`` at each
        :meth:`reset`. Returns an int32 array of ``n_games`` that the
        environment owns and overwrites at the next call (copy what you keep);
        it can be given to :meth:`step` as it is. Before the first
        :meth:`reset` it raises :class:`~skitgubbe.ArgumentError`.

        >>> import skitgubbe as sg
        >>> env = VectorEnv(3, sg.Rules.modern(3), seed=2)
        >>> obs, info = env.reset()
        >>> actions = env.sample_actions()
        >>> actions.dtype.name, bool(info["action_mask"][[0, 1, 2], actions].all())
        ('int32', True)
        >>> obs, rewards, terminated, truncated, info = env.step(actions)
        """
        with self._calling():
            if self._core.sample(self._sampled) >= 0:  # the core has dealt no game yet
                raise ArgumentError("call reset() before sample_actions()")
        return self._sampled

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Take ``actions[i]`` in game ``i``; returns (observations, rewards,
        terminated, truncated, info).

        ``rewards`` has one column per seat (nonzero only where a game just
        ended); a game that ended (``terminated``: with a loser or nobody left;
        ``truncated``: by the move cap) is already dealt again. An illegal
        action raises :class:`~skitgubbe.IllegalActionError` naming the game,
        and no game changes.

        >>> env = VectorEnv(1, seed=5)
        >>> obs, info = env.reset()
        >>> env.step([508])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.IllegalActionError: game 0: illegal action 508 (pick up); ...
        """
        with self._calling():
            return self._step(actions)

    def _step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        numpy = import_numpy()
        if not self._dealt:
            raise ArgumentError("call reset() before step()")
        given = numpy.asarray(actions)
        if given.shape != (self.n_games,) or given.dtype.kind not in "iu":
            raise ArgumentError(
                f"actions must be {self.n_games} integer action ids, one per game, "
                f"not {brief(actions)} (shape {given.shape}, dtype {given.dtype})"
            )
        if ((given < 0) | (given >= NUM_ACTIONS)).any():
            bad = int(numpy.flatnonzero((given < 0) | (given >= NUM_ACTIONS))[0])
            raise ArgumentError(
                f"game {bad}: {int(given[bad])} is no action id (0 <= action < {NUM_ACTIONS})"
            )
        self._actions[:] = given
        bad = self._policy_call(self._core.step, self._actions)
        if bad >= 0:
            action = int(self._actions[bad])
            legal = tuple(int(a) for a in numpy.flatnonzero(self._masks[bad]))
            raise IllegalActionError(
                f"game {bad}: illegal action {action} ({describe(action)}); legal actions: {legal}",
                action,
                "not legal in this game",
                legal,
            )
        players = self._rules.players
        return (
            self._obs,
            self._rewards[:, :players],
            self._terminated.view(numpy.bool_),
            self._truncated.view(numpy.bool_),
            self._info,
        )


def _learners(learners: Sequence[int] | str, players: int) -> tuple[int, ...]:
    if learners == "all":
        return tuple(range(players))
    if isinstance(learners, str):
        raise ArgumentError(f"learners must be seats or 'all', not {brief(learners)}")
    if not isinstance(learners, Sequence):
        raise ArgumentTypeError(f"learners must be seats or 'all', not {brief(learners)}")
    seats: tuple[int, ...] = tuple(cast("Sequence[int]", learners))
    if not seats or any(type(s) is not int or not 0 <= s < players for s in seats):
        raise ArgumentError(f"learners must be seats 0 .. {players - 1}, not {brief(learners)}")
    if len(set(seats)) != len(seats):
        raise ArgumentError(f"learners repeat a seat: {seats}")
    return tuple(sorted(seats))


def _policies(
    opponents: object, learners: tuple[int, ...], players: int
) -> tuple[tuple[int, ...], dict[int, Rollout]]:
    """The core's policy of every seat, and the seats played by a policy of the caller's."""
    from ..bots.policy import resolve

    others = [s for s in range(players) if s not in learners]
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        names: list[object] = [opponents] * len(others)
    else:
        names = list(opponents)
    if len(names) != len(others):
        raise ArgumentError(f"{len(others)} opponents expected (one per seat), not {len(names)}")
    policy = dict.fromkeys(learners, _core.VEC_LEARNER)
    custom: dict[int, Rollout] = {}
    for seat, name in zip(others, names, strict=True):
        if isinstance(name, str) and name in _POLICIES:
            policy[seat] = _POLICIES[name]
            continue
        if isinstance(name, str) and not (name.endswith(".c") or ":" in name):
            raise ArgumentError(
                "opponents are 'random', 'greedy' or a policy of your own "
                f"(skitgubbe.bots.policy), not {brief(name)}"
            )
        custom[seat] = resolve(name)
        policy[seat] = _POLICIES["greedy"]  # the core's placeholder: the policy plays
    return tuple(policy[s] for s in range(players)), custom
