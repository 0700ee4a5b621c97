"""The rollout policy of lowest.c in Python: the same moves, for trying ideas (slower).

    python -m skitgubbe arena "ismcts:rollout=examples.policies.lowest:lowest" ismcts greedy

(from the top of the checkout, whose folder ``python -m`` puts on the import path, so that
``examples.policies.lowest`` imports), or ``ISMCTSBot(rollout=lowest)``.
"""

from __future__ import annotations

from skitgubbe.bots.policy import Position

PLAY = 0
SUIT_CARDS = 0x1FFF


def _lowest_rank(cards: int) -> int:
    ranks = [
        rank for suit in range(4) for rank in range(2, 15) if cards >> (16 * suit + rank - 2) & 1
    ]
    return min(ranks, default=0)


def lowest(position: Position) -> int:
    """The index of the move to play: the lowest card, sparing trumps."""
    trump = position.trump
    best, best_key = -1, 1 << 20
    for i, (kind, cards) in enumerate(position.moves()):
        if kind != PLAY or not cards:
            continue
        key = _lowest_rank(cards) * 8 - bin(cards).count("1")
        if trump >= 0 and cards & (SUIT_CARDS << (16 * trump)):
            key += 200
        if key < best_key:
            best, best_key = i, key
    return best if best >= 0 else 0
