# rng.pxi: the generator and the deal: seeds, decks and sg_simulate's whole games.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


def rng_outputs(uint64_t seed, int count):
    """The first `count` outputs of the generator seeded with `seed`."""
    cdef sg_rng rng
    sg_rng_seed(&rng, seed)
    return [sg_rng_next(&rng) for _ in range(count)]


def rng_below(uint64_t seed, uint32_t bound, int count):
    """`count` unbiased draws in [0, bound) from the generator seeded with `seed`."""
    cdef sg_rng rng
    if bound == 0:
        raise ValueError("bound must be positive")
    sg_rng_seed(&rng, seed)
    return [sg_rng_below(&rng, bound) for _ in range(count)]


def deck_from_seed(uint64_t seed):
    """The deck (52 card indices, top first) of a game made from `seed`."""
    cdef uint8_t deck[52]
    sg_deck_from_seed(seed, deck)
    return bytes(deck[:52])


def game_seed(uint64_t seed, uint64_t index):
    """Seed of game `index` in a batch started from `seed`."""
    return sg_game_seed(seed, index)


def simulate(tuple rules, uint64_t seed, uint64_t first, uint64_t count):
    """Random games first..first+count-1 of batch `seed`, played in C without the GIL.

    Returns (games, moves, losses per seat (4), no_loser, truncated).
    """
    cdef sg_rules r
    cdef sg_sim_result res
    fill_rules(&r, rules)
    if sg_rules_check(&r, NULL) != SG_RULES_ERROR_NONE:
        raise CoreError(SG_ERROR_RULES, "bad rules")
    res.games = res.moves = res.no_loser = res.truncated = 0
    res.losses[0] = res.losses[1] = res.losses[2] = res.losses[3] = 0
    with nogil:
        sg_simulate(&r, seed, first, count, &res)
    return (res.games, res.moves, (res.losses[0], res.losses[1], res.losses[2], res.losses[3]),
            res.no_loser, res.truncated)
