"""A synthetic model of deal sets, and the generalized SPRT run on many of them at once.

Finishing orders follow a Plackett-Luce model drawn from the bottom: each seat's
"badness" is exp(-theta) and the order is that of -theta + G with G standard Gumbel
(the largest is the skitgubbe). Whatever ties the G of different games together,
each game's G are independent Gumbels, so every game is exactly Plackett-Luce:
NEW (theta) against n - 1 copies of OLD (0) loses with chance 1 / (1 + (n-1) e^theta).
Luck: "independent" (fresh G in every game), "hand" (a seat's G is its hand's, the
same in every seating of the deal: rotation cancels it), "cluster" (a bot's G is
shared by half its games of the deal set: luck that clusters).
"""

from __future__ import annotations

import math

import numpy as np

from skitgubbe.arena.sprt import wald_bounds

LUCK = ("independent", "hand", "cluster")


def theta_for(rate: float, players: int) -> float:
    """NEW's log-strength that makes its loss rate ``rate``."""
    return math.log((1 / rate - 1) / (players - 1))


def deal_sets(
    rng: np.random.Generator,
    size: int,
    players: int,
    theta: float,
    luck: str,
    truncated: float = 0.0,
    plain: bool = False,
) -> np.ndarray:
    """NEW's loss share in each of ``size`` deal sets (``plain``: the plain loss rate,
    a truncated game counting as no loss)."""
    n = players
    gumbel = rng.gumbel(size=(size, n, n))  # [set, arrangement, seat]
    if luck == "hand":
        use = rng.random(size=(size, n, n)) < 0.5
        gumbel = np.where(use, gumbel[:, :1, :], gumbel)
    elif luck == "cluster":
        # by bot: NEW sits at seat a in arrangement a; the OLD copies fill the rest in order
        shared = rng.gumbel(size=(size, 1, n))  # one G per bot (NEW = 0, copies 1..)
        bot_of_seat = np.array(
            [[0 if s == a else 1 + s - (s > a) for s in range(n)] for a in range(n)]
        )
        by_bot = shared[:, 0, :][:, bot_of_seat]  # [set, arrangement, seat]
        use = rng.random(size=(size, n, n)) < 0.5
        gumbel = np.where(use, by_bot, gumbel)
    strength = np.zeros((n, n))
    strength[np.arange(n), np.arange(n)] = theta  # NEW's seat in each arrangement
    badness = -strength[None] + gumbel
    # rank 0 = the skitgubbe (largest badness), 1 = next worst ...
    rank = (-badness).argsort(axis=2).argsort(axis=2)
    new_rank = rank[:, np.arange(n), np.arange(n)]  # [set, arrangement]
    share = (new_rank == 0).astype(float)
    if truncated:
        cut = rng.random(size=(size, n)) < truncated
        holders = rng.integers(2, n + 1, size=(size, n))
        if plain:
            share = np.where(cut, 0.0, share)
        else:
            share = np.where(cut, (new_rank < holders) / holders, share)
    return share.mean(axis=1)


def grid(players: int, truncated: bool) -> np.ndarray:
    lcm = math.lcm(*range(2, players + 1)) if truncated else 1
    return np.arange(players * lcm + 1) / (players * lcm)


def batch_llr(values: np.ndarray, counts: np.ndarray, mu0: float, mu1: float) -> np.ndarray:
    """gsprt_llr for many count vectors over ``values`` (runs x values), as the library
    computes it on the values seen plus the ends 0 and 1 (0.001 where unseen)."""
    weights = counts.astype(float).copy()
    for end in (0, -1):
        weights[:, end] = np.where(weights[:, end] == 0, 1e-3, weights[:, end])
    total = counts.sum(axis=1)
    p = weights / weights.sum(axis=1, keepdims=True)
    out = np.zeros(len(counts))
    lams = []
    for mu in (mu0, mu1):
        d = values[None, :] - mu
        low = np.full(len(counts), -1 / d.max()) + 1e-15
        high = np.full(len(counts), -1 / d.min()) - 1e-15
        for _ in range(30):
            lam = (low + high) / 2
            f = (p * d / (1 + lam[:, None] * d)).sum(axis=1)
            low = np.where(f > 0, lam, low)
            high = np.where(f > 0, high, lam)
        lam = (low + high) / 2
        for _ in range(4):  # Newton polishes the bisection's answer
            q = d / (1 + lam[:, None] * d)
            lam = lam + (p * q).sum(axis=1) / (p * q * q).sum(axis=1)
        lams.append((lam, d))
    (lam0, d0), (lam1, d1) = lams
    out = total * (p * (np.log1p(lam0[:, None] * d0) - np.log1p(lam1[:, None] * d1))).sum(axis=1)
    return out


def simulate(
    rng: np.random.Generator,
    runs: int,
    players: int,
    theta: float,
    luck: str,
    mu0: float,
    mu1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    truncated: float = 0.0,
    plain: bool = False,
    cap: int = 20_000,
    block: int = 32,
) -> tuple[float, float, float]:
    """Run ``runs`` sequential tests; (share accepting H1, share accepting H0, mean length).

    The tests go ``block`` deal sets at a time (the LLR after each of them computed at
    once); a test stops at the first deal set whose LLR crosses a bound."""
    values = grid(players, truncated > 0)
    scale = len(values) - 1
    lower, upper = wald_bounds(alpha, beta)
    counts = np.zeros((runs, len(values)), dtype=np.int64)
    active = np.arange(runs)
    decision = np.zeros(runs, dtype=int)
    length = np.full(runs, cap)
    step = 0
    while len(active) and step < cap:
        size = min(block, cap - step)
        scores = deal_sets(rng, len(active) * size, players, theta, luck, truncated, plain)
        seen = np.zeros((len(active), size, len(values)), dtype=np.int64)
        index = np.rint(scores * scale).astype(int).reshape(len(active), size)
        np.put_along_axis(seen, index[:, :, None], 1, axis=2)
        path = counts[active][:, None, :] + seen.cumsum(axis=1)  # [run, deal set, value]
        llr = batch_llr(values, path.reshape(-1, len(values)), mu0, mu1).reshape(-1, size)
        over = (llr >= upper) | (llr <= lower)
        ended = over.any(axis=1)
        first = over.argmax(axis=1)[ended]
        done = active[ended]
        decision[done] = np.where(llr[ended, first] >= upper, 1, -1)
        length[done] = step + first + 1
        counts[active] = path[:, -1]
        active = active[~ended]
        step += size
    return float(np.mean(decision == 1)), float(np.mean(decision == -1)), float(length.mean())
