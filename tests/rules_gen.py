"""Random rule configurations for tests that run over every variant."""

from __future__ import annotations

import random

import skitgubbe as sg


def random_rules(rng: random.Random) -> sg.Rules:
    """Every field of RULES.md §9 drawn at random (the refused combination excepted)."""
    trump = rng.choice(["last_card", "none", "upcard"])
    return sg.Rules(
        players=rng.choice([2, 3, 4]),
        hand_size=rng.choice([3, 5]),
        trick_mode=rng.choice(["duel", "all"]),
        duel_tie=rng.choice(["replay", "bounce"]),
        all_tie=rng.choice(["pot", "lower_out"]),
        multi_card_plays=trump != "upcard" and rng.random() < 0.5,
        slough=rng.random() < 0.5,
        try_your_luck=rng.random() < 0.5,
        draw=rng.choice(["after_play", "after_trick"]),
        last_card=rng.choice(["hidden", "reveal"]),
        trump=trump,
        low_card_threshold=rng.choice([None, None, rng.randrange(1, 14)]),
        runs=rng.random() < 0.5,
        pickup=rng.choice(["top", "top_run", "pile"]),
        trick_end=rng.choice(["count", "rotation"]),
        max_moves=rng.choice([60, 3000, 3000, 3000]),
    )
