"""Sampled worlds respect every public fact, and are exact (docs/rules.md §8, docs/bots.md).

A world sampled from a seat's view must (a) agree with the view: every card the view
places where it places it, every count, no card twice, the stock's known cards (the
up-card) in place; (b) allow the real game: its hidden cards could lie as the real ones
do; and (c) be drawn with the right probability: uniformly over the unknown slots under
the classic rules, and under the slough window and the low-card rule only among the
deals that respect what the history proves, each as likely as the deals behind it.

The exactness is checked at three levels: the history's cases against a brute-force
count of every way the hidden slots could have been filled (small synthetic histories),
the facts read from real histories against the real hands, and the C sampler's draws
against the exact distribution enumerated over every deal of small real positions.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from scipy import stats

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.game.events import EventKind
from skitgubbe.game.worlds import Belief, Case, _cases, _Reader, _Seat, belief

LOW = 0b1111
SLOW = pytest.mark.slow


def tiers(fast: object, slow: object) -> list[object]:
    """A small run for the fast tier and a large one for the slow tier."""
    return [pytest.param(fast, id="fast"), pytest.param(slow, id="slow", marks=SLOW)]


def _codes(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _ways(case: Case, cards: list[int]) -> int:
    """How many ways the cards fill the case's slots (one card a slot, none barred)."""
    return sum(
        all(not case.forbid[j] >> (c & 15) & 1 for j, c in enumerate(perm))
        for perm in itertools.permutations(cards)
    )


def _weight(cases: tuple[Case, ...], cards: list[int]) -> float:
    """The belief's weight of a seat holding ``cards`` unseen (uniform: 1)."""
    if not cases:
        return 1.0
    return sum(case.weight * _ways(case, cards) for case in cases)


def _views(
    rules: sg.Rules, games: int, seed: int, every: int = 1
) -> Iterator[tuple[sg.Game, sg.Observation]]:
    """Every seat's view at every ``every``-th position of random games."""
    rng = random.Random(seed)
    for _ in range(games):
        game = sg.Game.new(rules, seed=rng.getrandbits(32))
        while game.result is None:
            if game.moves_played % every == 0:
                for seat in range(rules.players):
                    yield game, game.observation(seat)
            game.play(rng.choice(game.legal_moves))


VARIANTS = [
    sg.Rules.modern(players=3, low_card_threshold=5),
    sg.Rules.modern(players=4, low_card_threshold=5),
    sg.Rules.classic(players=4, low_card_threshold=10, hand_size=5),
    sg.Rules.classic(players=3, trick_mode="all", draw="after_play", multi_card_plays=True),
    sg.Rules.classic(players=4, trick_mode="all", all_tie="lower_out", trump="upcard"),
]
"""Rules whose histories prove facts: slough windows, the low-card rule, or both."""


# -- the cases against brute force ---------------------------------------------------


def _brute_force(ops: list[tuple[str, int]], cards: list[int]) -> int:
    """Every way to fill a seat's slots (one per card dealt or drawn) with its played
    cards and ``cards`` (still held) that the history allows: each played card in a slot
    it had when it played it, no slot holding a barred rank while it was held, and a
    card of each need's ranks in some slot held at the need."""
    arrivals = []
    reveals = []
    for t, (op, arg) in enumerate(ops):
        if op == "add":
            arrivals += [t] * arg
        elif op == "reveal":
            reveals.append((t, arg))
    held = [(t, c) for t, c in reveals] + [(len(ops), c) for c in cards]
    count = 0
    for slots in itertools.permutations(range(len(arrivals)), len(held)):
        if len(set(slots)) != len(arrivals):
            continue
        gone = {s: t for s, (t, _) in zip(slots, held, strict=True)}
        card = {s: c for s, (_, c) in zip(slots, held, strict=True)}
        if any(arrivals[s] >= gone[s] for s in slots):
            continue
        ok = True
        for t, (op, arg) in enumerate(ops):
            if op not in ("forbid", "need"):
                continue
            present = [s for s in slots if arrivals[s] < t < gone[s]]
            hits = [card[s] & 15 for s in present if arg >> (card[s] & 15) & 1]
            if (op == "forbid" and hits) or (op == "need" and not hits):
                ok = False
                break
        count += ok
    return count


def _random_history(rng: random.Random, universe: list[int]) -> list[tuple[str, int]]:
    """A short history of one seat over a few cards: deals, draws, windows, plays."""
    ops: list[tuple[str, int]] = [("add", rng.randint(1, 3))]
    held, played = ops[0][1], set()
    for _ in range(rng.randint(2, 6)):
        kind = rng.choice(["add", "forbid", "need", "reveal", "reveal"])
        if kind == "add" and held < 4:
            n = rng.randint(1, 2)
            ops.append(("add", n))
            held += n
        elif kind in ("forbid", "need"):
            ops.append((kind, rng.choice([1, 2, 3, 4, 5, 6, 9, 12])))
        elif kind == "reveal" and held > 1:
            card = rng.choice([c for c in universe if c not in played])
            played.add(card)
            ops.append(("reveal", card))
            held -= 1
    return ops


@pytest.mark.parametrize("histories", tiers(60, 1000))
def test_the_cases_of_a_history_count_every_way_its_slots_could_be_filled(histories: int) -> None:
    # Cards of ranks 0..3 in two suits: a tiny deck where every fact bites.
    universe = [s * 16 + r for s in range(2) for r in range(4)]
    rng = random.Random(33)
    checked = 0
    for _ in range(histories):
        ops = _random_history(rng, universe)
        seat = _Seat()
        needs: dict[int, int] = {}
        for op, arg in ops:
            if op == "add":
                seat.add(arg)
            elif op == "forbid":
                seat.forbid(arg, needs)
            elif op == "need":
                needs[len(needs)] = arg
                seat.need(len(needs) - 1, needs)
            else:
                seat.reveal(arg, needs)
        n = sum(arg for op, arg in ops if op == "add") - sum(op == "reveal" for op, _ in ops)
        rest = [c for c in universe if c not in {arg for op, arg in ops if op == "reveal"}]
        cases = _cases(seat.cases, needs, n) if seat.cases else ()
        for held in itertools.combinations(rest, n):
            exact = _brute_force(ops, list(held))
            # The raw cases count exactly; the core's cases (needs made slot by slot,
            # weights normalised) are proportional.
            raw = sum(
                w
                * sum(
                    all(not key[j][0] >> (c & 15) & 1 for j, c in enumerate(perm))
                    and all(
                        any(needs[i] >> (perm[j] & 15) & 1 for j, (_, ids) in enumerate(key)
                            if i in ids)
                        for i in {i for _, ids in key for i in ids}
                    )
                    for perm in itertools.permutations(held)
                )
                for key, w in seat.cases.items()
            )  # fmt: skip
            assert raw == exact, (ops, held)
            if cases:
                total = sum(w for w in seat.cases.values())
                assert _weight(cases, list(held)) * total == pytest.approx(exact), (ops, held)
            checked += 1
    assert checked > 3 * histories


# -- real histories ---------------------------------------------------------------


def test_classic_rules_prove_nothing_beyond_the_counts() -> None:
    for players in (2, 3, 4):
        for _game, view in _views(sg.Rules.classic(players=players), 3, players, every=7):
            assert belief(view) is None


def _real_hidden(game: sg.Game, view: sg.Observation, p: int) -> list[int]:
    return _codes(game.hands[p].mask & ~view.known[p].mask)


def _variants(fast: int) -> list[object]:
    """The first ``fast`` variants in the fast tier, every variant in the slow tier."""
    return [
        pytest.param(rules, id=rules.describe()[:60], marks=() if i < fast else SLOW)
        for i, rules in enumerate(VARIANTS)
    ]


@pytest.mark.parametrize("rules", _variants(2))
def test_the_real_deal_is_always_one_the_belief_allows(rules: sg.Rules) -> None:
    constrained = 0
    for game, view in _views(rules, 1 if rules in VARIANTS[:2] else 3, 17, every=3):
        facts = belief(view)
        if facts is None:
            continue
        for p, cases in enumerate(facts.cases):
            hidden = _real_hidden(game, view, p)
            assert len(hidden) == view.unknown_slots[p]
            if cases:
                constrained += 1
                assert _weight(cases, hidden) > 0, (p, cases, hidden)
    assert constrained > 20


def _holdings(game: sg.Game) -> list[tuple[int, ...]]:
    """Each seat's cards (hand and collection) after each prefix of the game's whole
    history, checked against the game's own hands after every move."""
    players = game.rules.players
    held = [0] * players
    out = [tuple(held)]
    adds = (EventKind.DEAL, EventKind.DRAW, EventKind.TAKE_BACK, EventKind.PICK_UP,
            EventKind.TAKE_UPCARD, EventKind.REVEAL, EventKind.TRICK_WON)  # fmt: skip
    for event in game.history:
        if event.kind in adds:
            held[event.seat] |= event.cards.mask
        elif event.kind in (EventKind.PLAY, EventKind.SLOUGH):
            held[event.seat] &= ~event.cards.mask
        elif event.kind is EventKind.GIVE:
            held[event.seat] &= ~event.cards.mask
            held[event.other] |= event.cards.mask
        out.append(tuple(held))
    replay = sg.Game.new(game.rules, seed=game.seed)
    for move in game.moves:
        replay.play(move)
        hands = out[len(replay.history)]
        assert hands == tuple(
            (h | c).mask for h, c in zip(replay.hands, replay.collections, strict=True)
        )
    return out


@pytest.mark.parametrize("rules", _variants(1)[:4])
def test_every_fact_read_from_a_history_holds_of_the_real_hands(rules: sg.Rules) -> None:
    # A window's facts concern the hands it opened on (unchanged until the trick is won
    # for the seats it skipped or that passed); the low-card fact the hands once the low
    # cards are given (phase 2: collections are held too).
    rng = random.Random(5)
    facts = 0
    for _ in range(2 if rules is VARIANTS[0] else 4):
        game = sg.Game.new(rules, seed=rng.getrandbits(32))
        while game.result is None:
            game.play(rng.choice(game.legal_moves))
        holdings = _holdings(game)
        trick = [0] * rules.players  # cards won: not in hand in phase 1
        phase1 = [0] * rules.players
        hands_then = []
        for event in game.history:
            hands_then.append(tuple(h & ~t for h, t in zip(phase1, trick, strict=True)))
            if event.kind is EventKind.TRICK_WON:
                trick[event.seat] |= event.cards.mask
            phase1 = list(holdings[len(hands_then)])
            if event.kind is EventKind.SHEDDING:
                trick = [0] * rules.players
        for seat in range(rules.players):
            view = game.observation(seat)
            reader = _Reader(view)
            reader.read(view.history)
            for at, who, holds, ranks in reader.facts:
                low = game.history[at].kind is EventKind.SHEDDING
                cards = (holdings[at] if low else hands_then[at])[who]
                assert bool(cards & ranks * 0x0001000100010001) == holds, (seat, at, who)
                facts += 1
    assert facts > 30


def _check_world(game: sg.Game, view: sg.Observation, facts: Belief | None, world: sg.Game) -> None:
    """(a): the world agrees with the view and respects every fact."""
    players = view.players
    assert world.hands[view.seat] == view.hand
    assert [len(h) for h in world.hands] == [len(h) for h in game.hands]
    assert [len(c) for c in world.collections] == list(view.collection_sizes)
    assert len(world.stock) == view.stock_size
    if view.upcard is not None:
        assert world.stock[-1] == view.upcard
    assert world.out_of_play == view.out_of_play
    assert world.table == view.table
    seen: set[sg.Card] = set()
    for p in range(players):
        assert view.known[p] <= world.hands[p] | world.collections[p]
        for card in list(world.hands[p]) + list(world.collections[p]):
            assert card not in seen
            seen.add(card)
    for card in (
        list(world.stock)
        + list(world.out_of_play)
        + [c for play in world.table for c in play.cards]
    ):
        assert card not in seen
        seen.add(card)
    if view.hidden_slots:
        assert world.hidden_card is not None and world.hidden_card not in seen
        seen.add(world.hidden_card)
    assert len(seen) == 52
    if facts is not None:
        for p, cases in enumerate(facts.cases):
            if cases:
                hidden = _codes(world.hands[p].mask & ~view.known[p].mask)
                assert _weight(cases, hidden) > 0


@pytest.mark.parametrize(
    "rules",
    [
        *_variants(1),
        pytest.param(sg.Rules.classic(players=2), id="classic, 2 players"),
        pytest.param(sg.Rules.modern(players=2, low_card_threshold=13), id="modern, 2", marks=SLOW),
    ],
)
def test_sampled_worlds_agree_with_the_view_and_every_fact(rules: sg.Rules) -> None:
    checked = 0
    for game, view in _views(rules, 1, 29, every=6 if rules.players > 2 else 9):
        if view.to_move is None:
            continue
        facts = belief(view)
        for k in range(3):
            _check_world(game, view, facts, view.sample_world(k))
            checked += 1
    assert checked > 30


@pytest.mark.parametrize("games", tiers(1, 8))
def test_the_sampler_respects_the_facts_at_once_in_real_positions(games: int) -> None:
    # The rejection sampler gives up after SAMPLE_TRIES proposals; in real positions it
    # practically never has to.
    totals = [0, 0, 0]
    for rules in VARIANTS[:2]:
        for _game, view in _views(rules, games, 41, every=2):
            facts = belief(view)
            if facts is None or view.to_move is None:
                continue
            _, outcomes = _core.sample_hands(view.core_view, facts.core(), 1, 40)
            totals = [a + b for a, b in zip(totals, outcomes, strict=True)]
    assert totals[0] > 2000 * games
    assert totals[1] + totals[2] <= totals[0] // 1000


# -- the sampler's draws against enumeration ----------------------------------------------


def _deals(pool: list[int], sizes: list[int]) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Every way to deal ``pool`` into groups of ``sizes`` (order within a group ignored)."""
    if not sizes:
        yield ()
        return
    for first in itertools.combinations(pool, sizes[0]):
        rest = [c for c in pool if c not in first]
        for others in _deals(rest, sizes[1:]):
            yield (first, *others)


def _small_positions(rules: sg.Rules, seed: int, wanted: int) -> Iterator[sg.Observation]:
    """Views with a belief and a pool of 3 to 9 cards, all in other hands."""
    found = 0
    for _game, view in _views(rules, 30, seed):
        if (
            view.to_move is None
            or view.stock_slots
            or view.hidden_slots
            or not 3 <= len(view.unknown) <= 9
            or belief(view) is None
        ):
            continue
        yield view
        found += 1
        if found == wanted:
            return


@pytest.mark.parametrize(
    ("players", "wanted"),
    [(3, 2), pytest.param(3, 8, marks=SLOW), pytest.param(4, 8, marks=SLOW)],
)
def test_the_sampler_draws_each_deal_with_its_exact_probability(players: int, wanted: int) -> None:
    rules = sg.Rules.modern(players=players, low_card_threshold=5)
    positions = 0
    for view in _small_positions(rules, 60 + players, wanted):
        facts = belief(view)
        assert facts is not None
        seats = [p for p in range(players) if view.unknown_slots[p]]
        sizes = [view.unknown_slots[p] for p in seats]
        exact: dict[tuple[int, ...], float] = {}
        for deal in _deals(_codes(view.unknown.mask), sizes):
            w = 1.0
            for p, cards in zip(seats, deal, strict=True):
                w *= _weight(facts.cases[p], list(cards))
            if w:
                exact[tuple(sum(1 << c for c in cards) for cards in deal)] = w
        total = sum(exact.values())
        n = 20000
        worlds, outcomes = _core.sample_hands(view.core_view, facts.core(), 7, n)
        assert outcomes[0] == n
        seen = Counter(tuple(hands[p] & view.unknown.mask for p in seats) for hands, _, _ in worlds)
        assert set(seen) <= set(exact)  # never a deal the facts rule out
        keys = sorted(exact)
        observed = [seen[k] for k in keys]
        expected = [n * exact[k] / total for k in keys]
        assert stats.chisquare(observed, expected).pvalue > 1e-4
        positions += 1
    assert positions == wanted


@pytest.mark.parametrize("games", tiers(1, 12))
def test_classic_worlds_deal_every_unknown_card_uniformly_over_the_slots(games: int) -> None:
    # (c): under the classic rules each unknown card lies in a slot owner's hand (a seat,
    # the stock, the hidden card) in proportion to its slots.
    pvalues = []
    for players in (2, 3, 4):
        for _game, view in _views(sg.Rules.classic(players=players), games, 70 + players, every=9):
            if view.to_move is None or len(view.unknown) < 2:
                continue
            worlds, _ = _core.sample_hands(view.core_view, None, len(pvalues), 3000)
            owners = [p for p in range(players) if view.unknown_slots[p]]
            slots = [view.unknown_slots[p] for p in owners]
            if view.stock_slots:
                slots.append(view.stock_slots)
            if view.hidden_slots:
                slots.append(1)
            if len(slots) < 2:
                continue
            card = min(view.unknown)
            counts = [0] * len(slots)
            for hands, stock, hidden in worlds:
                where = [i for i, p in enumerate(owners) if hands[p] >> card.code & 1]
                if where:
                    counts[where[0]] += 1
                elif card.code in stock:
                    counts[len(owners)] += 1
                else:
                    assert hidden == card.code
                    counts[-1] += 1
            expected = [3000 * s / sum(slots) for s in slots]
            pvalues.append(stats.chisquare(counts, expected).pvalue)
    assert len(pvalues) > 20
    assert min(pvalues) > 1e-3 / len(pvalues)  # Bonferroni at 0.1 %
    # and the p-values themselves are uniform
    assert stats.kstest(pvalues, "uniform").pvalue > 1e-3


def test_cases_beyond_the_limit_merge_into_one_that_allows_all_they_allow() -> None:
    from skitgubbe.game.worlds import MAX_CASES

    rng = random.Random(2)
    keys = {}
    while len(keys) < MAX_CASES + 40:
        key = tuple(sorted((rng.getrandbits(13) & rng.getrandbits(13), ()) for _ in range(3)))
        keys[key] = rng.randint(1, 9)
    cases = _cases(keys, {}, 3)
    assert len(cases) == MAX_CASES
    kept = {case.forbid for case in cases[:-1]}
    wide = cases[-1]
    universe = [s * 16 + r for s in range(4) for r in range(13)]
    for key in keys:
        forbid = tuple(f for f, _ in key)
        if forbid in kept:
            continue
        case = Case(1.0, forbid, ())
        for _ in range(20):
            cards = rng.sample(universe, 3)
            if _ways(case, cards):
                assert _ways(wide, cards)
    assert wide.weight == pytest.approx(
        sum(w for k, w in keys.items() if tuple(f for f, _ in k) not in kept) / sum(keys.values())
    )


def test_a_history_that_does_not_fit_the_view_proves_nothing() -> None:
    import attrs

    from skitgubbe.game.observation import history_of

    game = sg.Game.new(sg.Rules.modern(players=3), seed=1)
    for move in ("JC", "9D", "2D"):
        game.play(move)
    view = game.observation(0)
    assert belief(view) is not None
    cut = attrs.evolve(view, history=history_of(tuple(view.history)[3:]))
    assert belief(cut) is None
    assert cut.sample_world(1).hands[0] == view.hand


def test_beliefs_read_on_from_the_last_observation_as_belief_reads_it_all() -> None:
    from skitgubbe.game.worlds import Beliefs

    shared = Beliefs()  # one reader for every seat and game: it starts over when it must
    checked = 0
    for rules in VARIANTS[:1]:
        each = [Beliefs() for _ in range(rules.players)]  # one a seat: it reads on
        for _game, view in _views(rules, 1, 90, every=3):
            expected = belief(view)
            assert each[view.seat](view) == expected
            assert shared(view) == expected
            checked += 1
    assert checked > 50
