"""RNG and playout test vectors computed with the Python model.

They are meant to be compared against the C implementation.  ``test_model.py``
recomputes every constant here from ``rng.py`` and ``random_play.py``.  The RNG
vectors were also checked against an independent throw-away C transcription of
the generator specification.
"""

from __future__ import annotations

SPLITMIX64_STATE0_FIRST = 0xE220A8397B1DCDAF
"""First splitmix64 output from state 0 (the published reference value)."""

XOSHIRO_SEED_0_FIRST4 = (
    0x99EC5F36CB75F2B4,
    0xBF6E1F784956452A,
    0x1A5F849D4933E6E0,
    0x6AA594F1262D2D2C,
)
"""First four ``Xoshiro256(0).next()`` outputs."""

BIG_SEED = 12345678901234567890
"""A seed above 2**63, to catch signed-integer mistakes."""

XOSHIRO_BIG_SEED_FIRST4 = (
    0x1AA60A5817C7040D,
    0xE5FA38B920B86E74,
    0xB9215DDEB166C20F,
    0x834846FC347FD3F2,
)
"""First four ``Xoshiro256(BIG_SEED).next()`` outputs."""

DECK_SEED_1_FIRST10 = (9, 28, 40, 57, 23, 37, 36, 60, 16, 19)
"""``deck_from_seed(1)[:10]`` (card codes, suit * 16 + rank)."""

DECK_SEED_1 = (
    9,
    28,
    40,
    57,
    23,
    37,
    36,
    60,
    16,
    19,
    27,
    56,
    55,
    52,
    12,
    54,
    4,
    33,
    7,
    8,
    51,
    0,
    49,
    35,
    24,
    58,
    5,
    11,
    10,
    21,
    18,
    17,
    41,
    1,
    53,
    2,
    38,
    25,
    59,
    43,
    50,
    48,
    26,
    44,
    20,
    3,
    6,
    39,
    22,
    34,
    32,
    42,
)
"""The whole of ``deck_from_seed(1)``."""

BELOW_BOUND = 3221225472
"""A bound of 3 * 2**30, large enough that Lemire's rejection loop runs."""

BELOW_SEED_42_FIRST16 = (
    270141538,
    1220780836,
    2190573157,
    2978644469,
    3194824031,
    2479504356,
    2316894051,
    2738068850,
    2452558549,
    1879099655,
    2580279870,
    1035339339,
    2290774316,
    1986727990,
    2279147378,
    2280077710,
)
"""Sixteen successive ``Xoshiro256(42).below(BELOW_BOUND)`` draws (20 raw outputs consumed)."""

GAME_SEED_1_FIRST4 = (
    0x910A2DEC89025CC1,
    0xBEEB8DA1658EEC67,
    0xF893A2EEFB32555E,
    0x71C18690EE42C90B,
)
"""``game_seed(1, index)`` for index 0..3."""

PLAYOUT_SEEDS = range(100)
"""Seeds of the playout totals below (hand_size 3, max_moves 10 000, dealer players - 1)."""

PLAYOUT_TOTALS = {
    2: (12966, (44, 56), 0, 0),
    3: (24033, (36, 39, 25), 0, 0),
    4: (37600, (25, 27, 26, 22), 0, 0),
}
"""Per player count: (sum of moves, losses per seat, truncated games, games without loser)."""

PLAYOUT_FIRST5 = {
    2: (
        (1, 139, False, False),
        (1, 143, False, False),
        (0, 128, False, False),
        (0, 120, False, False),
        (0, 132, False, False),
    ),
    3: (
        (2, 210, False, False),
        (0, 297, False, False),
        (1, 168, False, False),
        (1, 295, False, False),
        (1, 313, False, False),
    ),
    4: (
        (2, 304, False, False),
        (2, 291, False, False),
        (3, 440, False, False),
        (1, 597, False, False),
        (1, 385, False, False),
    ),
}
"""Per player count, ``play_random(players, seed)`` for seeds 0..4.

Each entry is ``(loser, moves, truncated, no_loser)``.
"""
