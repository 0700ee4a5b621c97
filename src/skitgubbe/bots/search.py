"""Search bots: perfect-information Monte Carlo and information-set MCTS, run in C."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeVar

from .. import _core
from ..errors import ArgumentError, ArgumentTypeError
from ..game.moves import Move
from ..game.observation import Observation
from ..game.worlds import Beliefs
from .registry import check_turn

if TYPE_CHECKING:
    from .net import Network
    from .policy import Rollout

T = TypeVar("T")

__all__ = ["ISMCTSBot", "PIMCBot"]

_INT_MAX: Final = 2**31 - 1  # the C core's int: worlds, rollouts
_UINT32_MAX: Final = 2**32 - 1  # its uint32_t: iterations, rollout_cap

# Every option is checked where a bot is made (directly, or from a spec by the
# registry, so an arena refuses a match before it starts), never at its first
# move: the C search is safe for any value, but a value the C types cannot hold
# raises, and an infinite budget never returns.


def _policy(rollout: object, evaluation: object) -> Rollout:
    """The rollout of a search bot (see :mod:`skitgubbe.bots.policy`), checked now;
    ``"net"`` rolls out with the network (the greedy policy stands behind it)."""
    from .policy import resolve  # a C file is compiled (or found cached) here

    return resolve("greedy" if rollout == "net" else rollout, evaluation)


def _search(
    rollout: Rollout,
    run: Callable[..., T],
    before: tuple[Any, ...],
    after: tuple[Any, ...],
    network: Network | None,
    net_use: int,
    **options: Any,
) -> T:
    """``run(*before, policy, *after, **options)`` with ``rollout``'s policy and hooks and
    the network's uses; a policy that failed is a :class:`~skitgubbe.PolicyError` naming
    it."""
    builtin, choose, evaluate = rollout.arguments()
    net = None if network is None else network.core
    try:
        return run(*before, builtin, *after, choose=choose, evaluate=evaluate, net=net,
                   net_use=net_use, **options)  # fmt: skip
    except _core.SearchPolicyError as failure:
        raise rollout.failure(failure) from failure.__cause__


_LEAVES: Final = ("net", "rollout")


def _network(
    net: object, leaf: object, rollout: object, evaluation: object, prior: object = True
) -> tuple[Network | None, int]:
    """The network a search bot uses (``net``: False, True for the shipped one, or a weight
    file's path) and its uses (the ``_core.NET_*`` bits), checked now."""
    if not isinstance(net, (bool, str)):
        raise ArgumentTypeError(f"net must be true, false or a weight file's path, not {net!r}")
    if not isinstance(prior, bool):
        raise ArgumentTypeError(f"prior must be true or false, not {prior!r}")
    if leaf not in _LEAVES:
        raise ArgumentError(f"leaf must be one of {', '.join(_LEAVES)}, not {leaf!r}")
    if net is False and rollout != "net":
        return None, 0
    from .net import Network, default_network

    network = default_network() if net is True or net is False else Network.from_file(net)
    use = _core.NET_ROLLOUT if rollout == "net" else 0
    if net is not False:
        use |= _core.NET_PRIOR if prior else 0
        if leaf == "net" and evaluation is None:
            use |= _core.NET_LEAF
    return network, use


def _count(name: str, value: object, top: int) -> int:
    """An int from 1 to ``top`` (what the C type holds)."""
    if type(value) is not int:
        raise ArgumentTypeError(f"{name} must be an int from 1 to {top}, not {value!r}")
    if not 1 <= value <= top:
        raise ArgumentError(f"{name} must be an int from 1 to {top}, not {value!r}")
    return value


def _real(name: str, value: object, allowed: str, positive: bool) -> float:
    """A finite int or float, > 0 (``positive``) or >= 0; ``allowed`` says so in messages."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentTypeError(f"{name} must be {allowed}, not {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        number = math.inf
    if not math.isfinite(number) or not (number > 0 if positive else number >= 0):
        raise ArgumentError(f"{name} must be {allowed}, not {value!r}")
    return number


def _check_moves(observation: Observation) -> None:
    """A search chooses among the legal moves: a view with none is refused."""
    check_turn(observation)
    if not observation.legal_moves:
        raise ArgumentError(
            f"seat {observation.seat} is asked to move, but the view has no legal move "
            "(its legal_moves is empty): there is nothing to choose"
        )


def _best(counts: Mapping[Move, float], observation: Observation) -> Move:
    """The move with the highest count (the first such in move order)."""
    if not counts:  # the view's own state has no legal move: not a view the core made
        raise ArgumentError(
            f"the search found no legal move for seat {observation.seat} in the view's "
            "core_view, though its legal_moves has some: a view the engine did not make"
        )
    return max(counts, key=counts.__getitem__)


_SAMPLINGS: Final = ("exact", "uniform")


def _sampling(value: object) -> str:
    """How a search samples its worlds: ``exact`` or ``uniform`` (see :func:`_belief`)."""
    if value not in _SAMPLINGS:
        raise ArgumentError(f"sampling must be one of {', '.join(_SAMPLINGS)}, not {value!r}")
    return str(value)


def _belief(sampling: str, beliefs: Beliefs, observation: Observation) -> _core.Belief | None:
    """The belief a search samples its worlds from: with ``exact`` sampling, what the
    observation's history proves (:mod:`skitgubbe.game.worlds`, read on by the bot's
    ``beliefs``; None when it proves nothing beyond the counts), with ``uniform`` none
    (every arrangement of the unknown cards equally likely, as before the exact worlds)."""
    if sampling == "uniform":
        return None
    facts = beliefs(observation)
    return None if facts is None else facts.core()


def _seed(value: object) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ArgumentTypeError(f"seed must be an int or None, not {value!r}")
    return value


class PIMCBot:
    """Perfect-information Monte Carlo: sample worlds, roll every move out, keep the best.

    For each of ``worlds`` worlds consistent with its observation (the unknown
    cards dealt into the unknown slots as the history allows: ``sampling="exact"``,
    the default, deals only what the slough windows and the low-card rule have not
    ruled out, each deal as likely as it is, :mod:`skitgubbe.game.worlds`;
    ``sampling="uniform"`` deals them uniformly), it plays every legal move
    followed by ``rollouts`` rollouts with the ``rollout`` policy (``greedy``,
    ``random`` or ``mixed``), capped at ``rollout_cap`` moves, and picks the
    move with the best mean chance of not being the skitgubbe. It all runs in C.
    With ``net=True`` (or a weight file's path) each world is scored after
    each move by the network's values instead of rollouts; ``rollout="net"``
    rolls out with the network's best move.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> bot = sg.bots.PIMCBot(worlds=4, rollouts=1, seed=1)
    >>> bot.choose(game.observation(game.to_move)) in game.legal_moves
    True

    ``worlds`` and ``rollouts`` are ints from 1 to 2**31 - 1, ``rollout_cap``
    from 1 to 2**32 - 1, ``seed`` an int or None. A bad option raises
    :class:`~skitgubbe.errors.ArgumentError` (or
    :class:`~skitgubbe.errors.ArgumentTypeError`) here, not at the first move:

    >>> sg.bots.PIMCBot(worlds=2**31)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: worlds must be an int from 1 to 2147483647, not 2147483648
    """

    def __init__(
        self,
        worlds: int = 32,
        rollouts: int = 2,
        rollout: str = "greedy",
        rollout_cap: int = 400,
        seed: int | None = None,
        evaluation: Any = None,
        net: bool | str = False,
        sampling: str = "exact",
    ) -> None:
        self.worlds = _count("worlds", worlds, _INT_MAX)
        self.sampling = _sampling(sampling)
        self._beliefs = Beliefs()
        # With a network, each move's worlds are scored by its values after the move.
        self._network, use = _network(net, "net", rollout, evaluation)
        self._net_use = use & ~_core.NET_PRIOR
        self.net = net
        self.rollouts = _count("rollouts", rollouts, _INT_MAX)
        self._rollout = _policy(rollout, evaluation)
        self.rollout = rollout
        self.evaluation = evaluation
        self.rollout_cap = _count("rollout_cap", rollout_cap, _UINT32_MAX)
        self.seed = _seed(seed)
        self._rng = random.Random(seed)

    def scores(self, observation: Observation) -> dict[Move, float]:
        """Each legal move's mean reward (1 = not the skitgubbe) over the samples."""
        pairs = _search(
            self._rollout,
            _core.pimc,
            (observation.core_view, self.worlds, self.rollouts),
            (self.rollout_cap, self._rng.getrandbits(64)),
            self._network,
            self._net_use,
            belief=_belief(self.sampling, self._beliefs, observation),
        )
        return {Move.from_code(code): score for code, score in pairs}

    def choose(self, observation: Observation) -> Move:
        """The move with the best mean score (the first such in move order).

        A view of another seat's turn, or one with no legal move, raises
        :class:`~skitgubbe.errors.ArgumentError`.
        """
        _check_moves(observation)
        if len(observation.legal_moves) == 1:
            return observation.legal_moves[0]
        return _best(self.scores(observation), observation)

    def __repr__(self) -> str:
        net = f", net={self.net!r}" if self.net is not False else ""
        sampling = f", sampling={self.sampling!r}" if self.sampling != "exact" else ""
        return (
            f"PIMCBot(worlds={self.worlds}, rollouts={self.rollouts}, "
            f"rollout={self.rollout!r}{net}{sampling}, seed={self.seed!r})"
        )


class ISMCTSBot:
    """Single-observer information-set MCTS with per-player rewards, run in C.

    Each iteration samples a world consistent with the observation (``sampling``:
    ``"exact"``, the default, deals the unknown cards as the history allows, so that a
    player skipped in a slough window holds none of the trick's ranks and the players
    who gave low cards hold no 2–5, each deal as likely as it is:
    :mod:`skitgubbe.game.worlds`; ``"uniform"`` deals them uniformly), descends
    the one shared tree by UCB1 (``exploration``) among the moves legal in that
    world, adds a node, plays a rollout (``mixed``: greedy with a random move
    one time in four; capped at ``rollout_cap`` moves) and credits each node with
    the reward of the player who moved into it. The move chosen is the most
    visited. The budget is ``iterations`` (the default, reproducible from
    ``seed``) or ``time`` seconds of wall time per decision (on a monotonic
    clock, not the process's processor time, so searches on several threads
    at once each take their whole budget). The search releases the GIL.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> bot = sg.bots.ISMCTSBot(iterations=200, seed=1)
    >>> bot.choose(game.observation(game.to_move)) in game.legal_moves
    True

    With ``net=True`` (the shipped network, :mod:`skitgubbe.bots.net`) or
    ``net="file.sgnet"`` the tree is searched by PUCT: each move's score is its
    mean reward plus ``exploration`` (1.5 suits the prior better than the
    default 0.7: the ``hard`` level uses it) times the network's probability
    for it, times the square root of the times it was available over one plus
    its visits; each new leaf is scored by the network's world value
    (``leaf="net"``, the default) or by a rollout (``leaf="rollout"``, with the
    ``rollout`` policy: a C policy of your own combines with the network's
    prior so). ``prior=False`` keeps plain UCT and takes the network's values
    only. ``rollout="net"`` rolls out with the network's best move.

    With ``merge=True`` (the default) the search treats equivalent moves as one, in its
    tree and in the rollouts' random moves: in phase 2, cards of one suit with no card
    still in play between them (``sg_merge_moves``; docs/bots.md says when it is exact).
    Only the lowest card of such a class is searched; the others keep 0 visits.
    ``merge=False`` searches every legal move.

    >>> expert = sg.bots.ISMCTSBot(iterations=200, net=True, seed=1)
    >>> expert.choose(game.observation(game.to_move)) in game.legal_moves
    True

    ``iterations`` is None or an int from 1 to 2**32 - 1, ``time`` None or a
    finite number of seconds > 0 (with both, the search stops at whichever it
    reaches first), ``exploration`` a finite number >= 0, ``rollout_cap`` an
    int from 1 to 2**32 - 1, ``seed`` an int or None. A bad option raises
    :class:`~skitgubbe.errors.ArgumentError` (or
    :class:`~skitgubbe.errors.ArgumentTypeError`) here, not at the first move:

    >>> sg.bots.ISMCTSBot(exploration=-1)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: exploration must be a finite number >= 0, not -1
    >>> sg.bots.ISMCTSBot(time=float("inf"))
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: time must be None or a finite number of seconds > 0, not inf
    """

    def __init__(
        self,
        iterations: int | None = None,
        time: float | None = None,
        exploration: float = 0.7,
        rollout: str = "mixed",
        rollout_cap: int = 200,
        seed: int | None = None,
        evaluation: Any = None,
        net: bool | str = False,
        leaf: str = "net",
        prior: bool = True,
        sampling: str = "exact",
        merge: bool = True,
    ) -> None:
        if iterations is None and time is None:
            iterations = 3000
        if iterations is not None:
            _count("iterations", iterations, _UINT32_MAX)
        if time is not None:
            _real("time", time, "None or a finite number of seconds > 0", positive=True)
        self.iterations = iterations
        self.time = time
        self._network, self._net_use = _network(net, leaf, rollout, evaluation, prior)
        self.net = net
        self.leaf = leaf
        self.prior = prior
        self.exploration = _real("exploration", exploration, "a finite number >= 0", positive=False)
        self._rollout = _policy(rollout, evaluation)
        self.rollout = rollout
        self.evaluation = evaluation
        self.rollout_cap = _count("rollout_cap", rollout_cap, _UINT32_MAX)
        self.seed = _seed(seed)
        self.sampling = _sampling(sampling)
        self._beliefs = Beliefs()
        if not isinstance(merge, bool):
            raise ArgumentTypeError(f"merge must be true or false, not {merge!r}")
        self.merge = merge
        self._rng = random.Random(seed)
        self.last_search: tuple[int, int, float] = (0, 0, 0.0)
        """(iterations, tree nodes, seconds of wall time it took) of the last search."""

    def visits(self, observation: Observation) -> dict[Move, int]:
        """Search and return the root's visit count of each legal move."""
        return {move: count for move, (count, _reward) in self.statistics(observation).items()}

    def statistics(self, observation: Observation) -> dict[Move, tuple[int, float]]:
        """Search and return each legal move's visits and its total reward at the root.

        The reward is the mover's: 1 for each simulation in which it was not the
        skitgubbe, so ``reward / visits`` is the search's estimate of its chance
        not to lose after that move (:mod:`skitgubbe.analysis` reads it so).

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=4)
        >>> stats = sg.bots.ISMCTSBot(iterations=300, seed=1).statistics(
        ...     game.observation(game.to_move))
        >>> sum(visits for visits, _ in stats.values()), all(
        ...     0 <= reward <= visits for visits, reward in stats.values())
        (300, True)
        """
        _best, root, iterations, nodes, seconds = _search(
            self._rollout,
            _core.ismcts_rewards,
            (
                observation.core_view,
                self.iterations or 0,
                float(self.time or 0.0),
                self.exploration,
            ),
            (self.rollout_cap, self._rng.getrandbits(64)),
            self._network,
            self._net_use,
            belief=_belief(self.sampling, self._beliefs, observation),
            flags=_core.ISMCTS_MERGE if self.merge else 0,
        )
        self.last_search = (iterations, nodes, seconds)
        return {Move.from_code(code): (count, reward) for code, count, reward in root}

    def choose(self, observation: Observation) -> Move:
        """The most visited move after the search.

        A view of another seat's turn, or one with no legal move, raises
        :class:`~skitgubbe.errors.ArgumentError`:

        >>> import attrs, skitgubbe as sg
        >>> game = sg.Game.new(seed=4)
        >>> view = attrs.evolve(game.observation(game.to_move), legal_moves=())
        >>> sg.bots.ISMCTSBot(iterations=10).choose(view)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: seat 0 is asked to move, but the view has no legal move ...
        """
        _check_moves(observation)
        if len(observation.legal_moves) == 1:
            return observation.legal_moves[0]
        return _best(self.visits(observation), observation)

    def __repr__(self) -> str:
        budget = f"time={self.time}" if self.time else f"iterations={self.iterations}"
        net = f", net={self.net!r}, leaf={self.leaf!r}" if self.net is not False else ""
        sampling = f", sampling={self.sampling!r}" if self.sampling != "exact" else ""
        merge = "" if self.merge else ", merge=False"
        return (
            f"ISMCTSBot({budget}, rollout={self.rollout!r}{net}{sampling}{merge}, "
            f"seed={self.seed!r})"
        )
