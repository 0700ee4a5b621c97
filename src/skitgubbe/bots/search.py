"""Search bots: perfect-information Monte Carlo and information-set MCTS, run in C."""

from __future__ import annotations

import math
import random
import threading
import time as _time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypeVar

from .. import _core
from ..errors import ArgumentError, ArgumentTypeError
from ..game.moves import Move
from ..game.observation import Observation, Phase
from ..game.worlds import Beliefs
from .registry import check_turn

if TYPE_CHECKING:
    from .net import Network
    from .policy import Rollout

T = TypeVar("T")

__all__ = ["ISMCTSBot", "PIMCBot"]

_INT_MAX: Final = 2**31 - 1  # the C core's int: worlds, rollouts
_UINT32_MAX: Final = 2**32 - 1  # its uint32_t: iterations, rollout_cap
_MAX_THREADS: Final = 64  # ISMCTSBot's threads

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
    the network's uses; a policy that failed is a :class:`~skitgubbe.PolicyError` naming it."""
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


_PLAYOUTS: Final = {
    "plain": _core.PLAYOUT_PLAIN,
    "mast": _core.PLAYOUT_MAST,
    "nast": _core.PLAYOUT_NAST,
}
"""ISMCTS's playouts: the rollout policy's own moves, or its random moves drawn by MAST or
NAST (see :class:`ISMCTSBot`)."""

_BUILTIN_ROLLOUTS: Final = ("random", "greedy", "mixed")
_RANDOM_FRACTION: Final = 0.25
"""The mixed rollout's share of random moves by default: one time in four."""


def _builtin(rollout: object) -> bool:
    return isinstance(rollout, str) and rollout in _BUILTIN_ROLLOUTS


def _playout(
    playout: object,
    random_fraction: object,
    temperature: object,
    blend: object,
    rollout: object,
    leaf: object,
    evaluation: object,
    prior: object,
    net_use: int,
) -> dict[str, Any]:
    """The playout settings of an ISMCTS bot (``_core.ismcts_rewards``' keywords), checked now:
    each needs the rollout (or the network) it acts on."""
    if not isinstance(playout, str) or playout not in _PLAYOUTS:
        raise ArgumentError(f"playout must be one of {', '.join(_PLAYOUTS)}, not {playout!r}")
    between = "a number from 0 to 1"
    fraction = _real("random_fraction", random_fraction, between, positive=False)
    if fraction > 1:
        raise ArgumentError(f"random_fraction must be {between}, not {random_fraction!r}")
    tau = _real("playout_temperature", temperature, "a finite number > 0", positive=True)
    if fraction != _RANDOM_FRACTION and rollout != "mixed":
        raise ArgumentError(
            f"random_fraction is the mixed rollout's share of random moves: it needs "
            f"rollout=mixed, not {rollout!r}"
        )
    if playout != "plain" and rollout not in ("mixed", "random"):
        raise ArgumentError(
            f"playout={playout} draws the rollouts' random moves: it needs rollout=mixed or "
            f"rollout=random, not {rollout!r}"
        )
    if tau != _core.PLAYOUT_TEMPERATURE and playout == "plain":
        raise ArgumentError(
            "playout_temperature is MAST's and NAST's: it needs playout=mast or playout=nast"
        )
    settings: dict[str, Any] = {
        "playout": _PLAYOUTS[playout],
        "random_fraction": fraction,
        "temperature": tau,
    }
    if blend is not None:
        weight = _real("blend", blend, "None or a number from 0 to 1", positive=False)
        if weight > 1:
            raise ArgumentError(f"blend must be None or a number from 0 to 1, not {blend!r}")
        leaf_net = net_use & _core.NET_LEAF and net_use & _core.NET_PRIOR and _builtin(rollout)
        if not leaf_net or leaf != "net" or evaluation is not None or prior is not True:
            raise ArgumentError(
                "blend mixes the network's leaf values with a rollout's: it needs net=true "
                "(or a weight file), leaf=net, prior=true, no evaluation and a built-in "
                "rollout (random, greedy or mixed)"
            )
        settings["blend"] = weight
    return settings


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


_Root: TypeAlias = "list[tuple[int, int, float]]"
"""The root's statistics as the binding gives them: (move code, visits, total reward)."""
_Found: TypeAlias = "tuple[int, _Root, int, int, float]"
"""What one C search returns: (best move, root, iterations, nodes, seconds)."""


def _shares(iterations: int | None, threads: int) -> list[int]:
    """Each thread's iterations (0: no limit, a time budget alone): ``iterations`` split as
    evenly as it goes, the first threads one more, and never a thread with none."""
    if not iterations:
        return [0] * threads
    workers = min(threads, iterations)
    share, extra = divmod(iterations, workers)
    return [share + (i < extra) for i in range(workers)]


def _merge(found: Sequence[_Found]) -> tuple[_Root, int, int, float]:
    """The searches' root statistics summed move by move, in the order of the searches;
    with their iterations and nodes summed and the longest one's seconds."""
    merged = [[code, 0, 0.0] for code, _visits, _reward in found[0][1]]
    for _best, root, _iterations, _nodes, _seconds in found:
        # Every search starts from the same view: the same legal moves in the same order.
        assert [code for code, _, _ in root] == [entry[0] for entry in merged]
        for entry, (_code, visits, reward) in zip(merged, root, strict=True):
            entry[1] += visits
            entry[2] += reward
    root = [(int(code), int(visits), float(reward)) for code, visits, reward in merged]
    return (
        root,
        sum(one[2] for one in found),
        sum(one[3] for one in found),
        max(one[4] for one in found),
    )


_MAX_SOLVER: Final = 52  # cards in two hands
# A root solve's node budget: what the search's own budget would buy (the solver
# searches a few million positions a second; an ISMCTS iteration takes a few µs).
_SOLVE_NODES_PER_SECOND: Final = 1_000_000
_SOLVE_NODES_PER_ITERATION: Final = 10
_SOLVE_TABLE: Final = 2**14  # entries: 1 MiB, cleared for each root solve


def _solvable_root(observation: Observation, cards: int) -> bool:
    """Whether ``observation`` is phase 2 with two players holding at most ``cards``
    cards between them, every card of which its seat can place."""
    if observation.phase is not Phase.SHEDDING:
        return False
    sizes = observation.hand_sizes
    return (
        sum(1 for size in sizes if size) == 2
        and sum(sizes) <= cards
        and sum(1 for slots in observation.unknown_slots if slots) <= 1
    )


def _solver(value: object) -> int:
    """The most cards in hands at which a search solves its leaves: 0 (never) to 52."""
    if type(value) is not int:
        raise ArgumentTypeError(
            f"solver must be an int from 0 (off) to {_MAX_SOLVER} cards, not {value!r}"
        )
    if not 0 <= value <= _MAX_SOLVER:
        raise ArgumentError(
            f"solver must be an int from 0 (off) to {_MAX_SOLVER} cards, not {value!r}"
        )
    return value


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
    mean reward plus ``exploration`` (1.5 suited the prior better than the
    default 0.7 in docs/strength.md's tuning) times the network's probability
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

    ``threads=N`` runs N independent searches at once (root parallelism), each
    on a thread of its own with a seed of its own drawn from the bot's, and sums
    their root statistics move by move: the move chosen is the most visited in
    the sum. ``iterations`` stays the total work, split between the searches
    (so ``threads`` does not change what an iteration budget costs, only how
    soon it is done); ``time`` is wall time per decision, which each search
    takes whole (so N threads do about N times the work of one). With an
    iteration budget the result is reproducible from ``seed``; ``threads=1``
    (the default) is the one search of before, on the calling thread; the
    other threads are started for each decision and end with it.

    >>> pair = sg.bots.ISMCTSBot(iterations=300, threads=2, seed=1)
    >>> sum(visits for visits, _ in pair.statistics(game.observation(game.to_move)).values())
    300

    With ``solver=N`` (0, the default, is off) the endgame solver of
    :func:`skitgubbe.analysis.solve` joins the search. When the position itself
    has two players holding cards in phase 2, at most ``N`` between them, every
    card of which the bot can place (in phase 2 a holder can), :meth:`choose`
    first solves it, within the positions its own budget would buy (10 an
    iteration, or a million a second of ``time``), and plays a move that
    achieves the best outcome; if the solve does not finish, the search runs
    in the time left. In the search, a leaf whose sampled world is such an
    endgame is solved instead of rolled out or scored by the network (at most
    2,000 positions a leaf, one transposition table for the whole search).

    >>> endgame = sg.Game.from_shedding(None, ["9D QD 5C", "JD AD 4C"], trump="S", leader=0)
    >>> sg.bots.ISMCTSBot(iterations=200, solver=12, seed=1).choose(endgame.observation(0))
    Move.parse('5♣')

    The playouts (docs/strength.md measured each): ``random_fraction`` is the
    mixed rollout's share of random moves (0.25 by default: one time in four).
    ``playout="mast"`` draws those random moves (every move of a ``random``
    rollout) by MAST, the move-average sampling technique: the search keeps the
    mean reward of each kind of move (its phase, kind and highest card) over
    all its simulations so far, and draws a move with probability proportional
    to ``exp(mean / playout_temperature)``; ``playout="nast"`` keeps the means
    of pairs of consecutive moves too. With the network's leaf values,
    ``blend`` scores each new leaf ``blend`` times the network's value plus
    ``1 - blend`` times a rollout's result (None, the default: the network
    alone, without a rollout).

    >>> mast = sg.bots.ISMCTSBot(iterations=200, playout="mast", seed=1)
    >>> mast.choose(game.observation(game.to_move)) in game.legal_moves
    True
    >>> sg.bots.ISMCTSBot(iterations=200, net=True, blend=0.5, seed=1)
    ISMCTSBot(iterations=200, rollout='mixed', net=True, leaf='net', blend=0.5, seed=1)

    ``iterations`` is None or an int from 1 to 2**32 - 1, ``time`` None or a
    finite number of seconds > 0 (with both, the search stops at whichever it
    reaches first), ``exploration`` a finite number >= 0, ``rollout_cap`` an
    int from 1 to 2**32 - 1, ``threads`` an int from 1 to 64, ``solver`` an int from 0
    to 52, ``seed`` an int or None, ``playout`` one of
    ``plain``, ``mast`` or ``nast`` (these two with a ``mixed`` or ``random``
    rollout), ``random_fraction`` a number from 0 to 1 (with a ``mixed``
    rollout), ``playout_temperature`` a finite number > 0 (with ``mast`` or
    ``nast``), ``blend`` None or a number from 0 to 1 (with the network's leaf
    values: ``net``, ``leaf="net"``, ``prior=True``). A bad option raises
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
    >>> sg.bots.ISMCTSBot(threads=0)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: threads must be an int from 1 to 64, not 0
    >>> sg.bots.ISMCTSBot(rollout="greedy", playout="mast")
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: playout=mast draws the rollouts' random moves: it needs \
rollout=mixed or rollout=random, not 'greedy'
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
        threads: int = 1,
        solver: int = 0,
        playout: str = "plain",
        random_fraction: float = _RANDOM_FRACTION,
        playout_temperature: float = _core.PLAYOUT_TEMPERATURE,
        blend: float | None = None,
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
        self._playout = _playout(
            playout, random_fraction, playout_temperature, blend, rollout, leaf, evaluation,
            prior, self._net_use,
        )  # fmt: skip
        self.playout = playout
        self.random_fraction = random_fraction
        self.playout_temperature = playout_temperature
        self.blend = blend
        self.rollout_cap = _count("rollout_cap", rollout_cap, _UINT32_MAX)
        self.threads = _count("threads", threads, _MAX_THREADS)
        self.solver = _solver(solver)
        self.seed = _seed(seed)
        self.sampling = _sampling(sampling)
        self._beliefs = Beliefs()
        if not isinstance(merge, bool):
            raise ArgumentTypeError(f"merge must be true or false, not {merge!r}")
        self.merge = merge
        self._rng = random.Random(seed)
        self.last_search: tuple[int, int, float] = (0, 0, 0.0)
        """(iterations, tree nodes, seconds of wall time it took) of the last search; with
        ``threads``, the iterations and nodes of every search and the longest one's seconds;
        after a move the solver chose (``solver``), (0, positions solved, seconds)."""

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
        return self._statistics(observation, float(self.time or 0.0))

    def _statistics(
        self, observation: Observation, seconds: float
    ) -> dict[Move, tuple[int, float]]:
        """The root's statistics of a search with ``seconds`` of wall time (0: none)."""
        shares = _shares(self.iterations, self.threads)
        seeds = [self._rng.getrandbits(64) for _ in shares]  # in thread order
        view = observation.core_view
        belief = _belief(self.sampling, self._beliefs, observation)  # once: shared read-only
        if len(shares) == 1:
            _best, root, iterations, nodes, took = self._search_one(
                view, belief, shares[0], seeds[0], seconds
            )
        else:
            root, iterations, nodes, took = _merge(
                self._search_many(view, belief, shares, seeds, seconds)
            )
        self.last_search = (iterations, nodes, took)
        return {Move.from_code(code): (count, reward) for code, count, reward in root}

    def _search_one(
        self,
        view: bytes,
        belief: _core.Belief | None,
        iterations: int,
        seed: int,
        seconds: float,
    ) -> _Found:
        """One C search of ``view`` with worlds from ``belief`` (``iterations`` 0: the time
        budget alone)."""
        found: _Found = _search(
            self._rollout,
            _core.ismcts_rewards,
            (view, iterations, seconds, self.exploration),
            (self.rollout_cap, seed),
            self._network,
            self._net_use,
            solver=self.solver,
            belief=belief,
            flags=_core.ISMCTS_MERGE if self.merge else 0,
            **self._playout,
        )
        return found

    def _search_many(
        self,
        view: bytes,
        belief: _core.Belief | None,
        shares: Sequence[int],
        seeds: Sequence[int],
        seconds: float,
    ) -> list[_Found]:
        """One search per share at once: the first on this thread, each other on a thread
        started for it (the C search releases the GIL); every search is waited for, and
        the first failure (in thread order) raised.

        The threads live for one decision: a bot keeps none between decisions, so a
        server with many bots seated holds no idle threads for them. Starting and joining
        them costs about 0.1 ms a decision (docs/performance.md), 1 % of 10 ms."""
        found: list[_Found | None] = [None] * len(shares)
        failures: list[BaseException | None] = [None] * len(shares)

        def search(i: int) -> None:
            try:
                found[i] = self._search_one(view, belief, shares[i], seeds[i], seconds)
            except BaseException as failure:  # raised on the calling thread below
                failures[i] = failure

        others = [
            threading.Thread(target=search, args=(i,), name=f"ismcts-{i}", daemon=True)
            for i in range(1, len(shares))
        ]
        started: list[threading.Thread] = []
        try:
            for thread in others:
                thread.start()  # may raise (no thread to be had): those started are joined
                started.append(thread)
            search(0)
        finally:
            for thread in started:
                thread.join()
        for failure in failures:
            if failure is not None:
                raise failure
        return [one for one in found if one is not None]

    def _solve_root(self, observation: Observation) -> Move | None:
        """The solver's best move when the position is an endgame it takes (see the
        class) and it finishes within the search's budget; else None."""
        if not self.solver or not _solvable_root(observation, self.solver):
            return None
        start = _time.perf_counter()
        budgets = []
        if self.iterations:
            budgets.append(self.iterations * _SOLVE_NODES_PER_ITERATION)
        if self.time:
            budgets.append(int(self.time * _SOLVE_NODES_PER_SECOND))
        value, _loser, best, _length, nodes, _stop, _to_move, _moves = _core.solve(
            observation.core_view, min(budgets), _SOLVE_TABLE, False
        )
        if _core.SOLVE_VALUES[value] == "unknown" or not best:
            return None
        self.last_search = (0, nodes, _time.perf_counter() - start)
        return Move.from_code(best)

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
        if not self.solver:
            return _best(self.visits(observation), observation)
        start = _time.perf_counter()
        solved = self._solve_root(observation)
        if solved is not None:
            return solved
        seconds = float(self.time or 0.0)
        if seconds:  # a root solve that did not finish took its share
            seconds = max(seconds - (_time.perf_counter() - start), seconds / 10)
        stats = self._statistics(observation, seconds)
        return _best({move: visits for move, (visits, _) in stats.items()}, observation)

    def __repr__(self) -> str:
        budget = f"time={self.time}" if self.time else f"iterations={self.iterations}"
        net = f", net={self.net!r}, leaf={self.leaf!r}" if self.net is not False else ""
        threads = f", threads={self.threads}" if self.threads != 1 else ""
        solver = f", solver={self.solver}" if self.solver else ""
        playout = "".join(
            f", {name}={value!r}"
            for name, value, default in (
                ("playout", self.playout, "plain"),
                ("random_fraction", self.random_fraction, _RANDOM_FRACTION),
                ("playout_temperature", self.playout_temperature, _core.PLAYOUT_TEMPERATURE),
                ("blend", self.blend, None),
            )
            if value != default
        )
        sampling = f", sampling={self.sampling!r}" if self.sampling != "exact" else ""
        merge = "" if self.merge else ", merge=False"
        options = f"{net}{threads}{solver}{playout}{sampling}{merge}"
        return f"ISMCTSBot({budget}, rollout={self.rollout!r}{options}, seed={self.seed!r})"
