"""The ceiling of inference: how much would a search gain if it knew the hidden cards?

Inference (weighting the sampled worlds by how likely each opponent's past moves make
them) can at best make a search's worlds the true one. This script measures that best
case: a "cheating" search plays against plain searches of the same spec and budget.
With ``--sees all`` it searches the true state (every card known, so every world it
samples is the game itself). With ``--sees hands`` it knows every other hand, but the
stock's order and the hidden last card are still dealt at random in its worlds: the
best that inference can do, because nobody knows those cards, so no past move tells
anything about them (docs/rules.md §8). The loss share it reaches below the fair share
bounds what any inference can add to that search.

    python examples/inference_ceiling.py --deals 100 --seed 3321 --jobs 2 --out ceiling.json
    python examples/inference_ceiling.py --sees hands --deals 100 --seed 3321 --jobs 2

A :class:`~skitgubbe.play.players.Player` only ever gets its seat's observation, so the
cheater cannot be an arena bot: this script plays the games itself, as the arena does
(:func:`skitgubbe.run_match`): deal ``d`` is shuffled from ``game_seed(seed, d)`` and
played once under each seating of the entrants (:func:`skitgubbe.arena.arrangements`),
every bot made fresh with the arena's blinded seed for its (deal, seating, seat). The
figures are the arena's (:class:`~skitgubbe.arena.MatchResult`: loss rate per seat
played, its 95 % Wilson interval over the deal sets), printed as ``skitgubbe arena``
prints them; ``--out`` saves the match record (``skitgubbe`` reads it as any other).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import attrs

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.apps.cli.match import print_match
from skitgubbe.arena import MatchGame, MatchResult, arrangements
from skitgubbe.bots import blinded_seed

SEES = {
    "all": " (sees every card)",
    "hands": " (sees every hand)",
    "hands1": " (sees every hand in phase 1)",
    "hands2": " (sees every hand in phase 2)",
}
"""The cheating entrant's name is the plain one's spec followed by one of these."""

PHASE_SEEN = {sg.Phase.COLLECTING: "hands1", sg.Phase.SHEDDING: "hands2", sg.Phase.OVER: ""}
"""The ``--sees`` value that names each phase alone."""

_LAYOUT = {name: (offset, size * count) for name, offset, size, count in _core.state_layout()[0]}


def hands_view(view: bytes, whole: bytes) -> bytes:
    """``view`` (a seat's view) with every other hand named as in ``whole`` (the state).

    The stock and the hidden card stay unknown, so the search still deals them at
    random; every count of unseen cards becomes 0 (``sg_view_check`` accepts the result:
    the unknown slots are still exactly the cards placed nowhere).

    >>> game = sg.Game.new(sg.Rules.classic(players=3), seed=1)
    >>> view = hands_view(game.observation(0).core_view, game._core.snapshot())
    >>> _core.view_check(view)
    0
    """
    out = bytearray(view)
    offset, size = _LAYOUT["hand"]
    out[offset : offset + size] = whole[offset : offset + size]
    offset, size = _LAYOUT["unseen"]
    out[offset : offset + size] = bytes(size)
    return bytes(out)


class Cheater:
    """A search bot handed more of ``game``'s true state than its seat's view.

    ``sees="all"``: the whole state in place of the view (a view with nothing unknown,
    which ``sg_view_check`` accepts), so every world the search samples is the game
    itself. ``sees="hands"``: the view with every hand named (:func:`hands_view`);
    ``"hands1"``, ``"hands2"``: the same in that phase only, the seat's own view in the
    other.
    """

    def __init__(self, bot: sg.Player, game: sg.Game, sees: str) -> None:
        self.bot = bot
        self.game = game
        self.sees = sees

    def choose(self, observation: sg.Observation) -> sg.Move:
        # The referee's game, read by the script (never by a bot of the arena): the
        # position's raw state, every card named.
        whole = self.game._core.snapshot()
        if self.sees == "all":
            view = whole
        elif self.sees in ("hands", PHASE_SEEN[observation.phase]):
            view = hands_view(observation.core_view, whole)
        else:
            view = observation.core_view
        return self.bot.choose(attrs.evolve(observation, core_view=view))


def play_deal(task: tuple[str, sg.Rules, int, int, str]) -> list[MatchGame]:
    """Deal ``deal`` of the match under every seating of the cheater and plain copies."""
    spec, rules, seed, deal, sees = task
    entrants = [spec + SEES[sees]] + [spec] * (rules.players - 1)
    deck_seed = _core.game_seed(seed, deal)
    games = []
    for arrangement, seats in enumerate(arrangements(entrants)):
        game = sg.Game.new(rules, seed=deck_seed)
        bot_seed = _core.game_seed(deck_seed, arrangement)
        lineup: list[sg.Player] = []
        for seat, name in enumerate(seats):
            bot = sg.bots.make(spec, seed=blinded_seed(_core.game_seed(bot_seed, seat)))
            lineup.append(Cheater(bot, game, sees) if name != spec else bot)
        result = sg.Referee(lineup, game=game).run()
        games.append(
            MatchGame(
                deal=deal,
                arrangement=arrangement,
                seats=seats,
                loser=result.loser,
                finish_order=result.finish_order,
                truncated=result.truncated,
                moves=result.moves_played,
            )
        )
    return games


def main(argv: list[str] | None = None) -> MatchResult:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", default="ismcts", help="the search (default: ismcts)")
    parser.add_argument(
        "--sees",
        choices=tuple(SEES),
        default="all",
        help="what the cheater sees: every card; or every hand but not the stock, in both "
        "phases or in phase 1 or 2 only",
    )
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--rules", choices=("classic", "modern"), default="classic")
    parser.add_argument("--deals", type=int, default=100, help="deal sets")
    parser.add_argument("--seed", type=int, default=3321)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--out", help="save the match record (JSON) here")
    args = parser.parse_args(argv)
    name, _ = sg.bots.check_plain_spec(args.spec)
    if name not in ("ismcts", "pimc"):
        parser.error("--spec names a search that reads its view's state: ismcts or pimc")
    rules = getattr(sg.Rules, args.rules)(players=args.players)
    tasks = [(args.spec, rules, args.seed, deal, args.sees) for deal in range(args.deals)]
    start = time.monotonic()
    games: list[MatchGame] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for done, played in enumerate(pool.map(play_deal, tasks), 1):
            games.extend(played)
            print(f"\r{done}/{args.deals} deal sets", end="", file=sys.stderr, flush=True)
    print(f" in {time.monotonic() - start:.0f} s", file=sys.stderr)
    entrants = (args.spec + SEES[args.sees],) + (args.spec,) * (rules.players - 1)
    result = MatchResult(
        entrants=entrants, rules=rules, deals=args.deals, seed=args.seed, games=tuple(games)
    )
    print_match(result, sys.stdout)
    if args.out:
        result.save_json(args.out)
        print(f"Saved {args.out}.")
    return result


if __name__ == "__main__":
    main()
