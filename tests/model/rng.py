"""The engine's versioned random generator, written out in plain Python.

This mirrors docs/rules.md §2: xoshiro256** seeded by splitmix64, Lemire's
unbiased bounded draw on 32 bits, and a Fisher-Yates shuffle of the deck in
card order.  All arithmetic is on unsigned 64-bit integers, so every result is
reduced modulo 2**64 explicitly.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
"""All-ones 64-bit mask: ``x & MASK64`` is ``x mod 2**64``."""

MASK32 = (1 << 32) - 1
"""All-ones 32-bit mask."""

GOLDEN_GAMMA = 0x9E3779B97F4A7C15
"""The splitmix64 increment (2**64 divided by the golden ratio, odd)."""


def splitmix64_mix(z: int) -> int:
    """Return the splitmix64 finaliser (the three mixing lines) applied to ``z``."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def splitmix64(state: int) -> tuple[int, int]:
    """Advance a splitmix64 state once.

    Returns ``(new_state, output)``: the state is incremented by the golden
    gamma and the output is the finaliser applied to the new state.
    """
    state = (state + GOLDEN_GAMMA) & MASK64
    return state, splitmix64_mix(state)


def rotl(x: int, k: int) -> int:
    """Rotate the 64-bit value ``x`` left by ``k`` bits."""
    return ((x << k) | (x >> (64 - k))) & MASK64


class Xoshiro256:
    """xoshiro256** with its 256-bit state filled from splitmix64."""

    def __init__(self, seed: int) -> None:
        """Seed the four state words with four successive splitmix64 outputs."""
        state = seed & MASK64
        self.s: list[int] = []
        for _ in range(4):
            state, output = splitmix64(state)
            self.s.append(output)

    def next(self) -> int:
        """Return the next 64-bit output and advance the state."""
        s = self.s
        result = (rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def below(self, bound: int) -> int:
        """Return an unbiased integer in ``[0, bound)`` (Lemire, 32-bit).

        ``bound`` must lie in ``1 .. 2**32``.  The high 32 bits of one output
        are multiplied by ``bound``; the high word of the product is the
        result, and products whose low word falls in the biased zone are
        rejected and redrawn.
        """
        if not 1 <= bound <= 1 << 32:
            raise ValueError(f"bound must be in 1..2**32, got {bound}")
        x = self.next() >> 32
        m = x * bound
        low = m & MASK32
        if low < bound:
            threshold = ((1 << 32) - bound) % bound
            while low < threshold:
                x = self.next() >> 32
                m = x * bound
                low = m & MASK32
        return m >> 32


def card_order_deck() -> list[int]:
    """Return the 52 card codes in card order (suit 0..3, rank 0..12)."""
    return [suit * 16 + rank for suit in range(4) for rank in range(13)]


def shuffle(rng: Xoshiro256) -> list[int]:
    """Return a deck (``deck[0]`` = top) shuffled by Fisher-Yates from the top index down."""
    deck = card_order_deck()
    for i in range(51, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deck_from_seed(seed: int) -> list[int]:
    """Return the deck a game created from ``seed`` is dealt from."""
    return shuffle(Xoshiro256(seed))


def game_seed(seed: int, index: int) -> int:
    """Return the seed of game number ``index`` of a series derived from ``seed``."""
    z = (seed + (index + 1) * GOLDEN_GAMMA) & MASK64
    return splitmix64_mix(z)
