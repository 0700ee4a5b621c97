"""What one client may make the server spend, and what all clients together may.

Every resource a request can make the server spend has a bound per client and a total
(:class:`Limits`, all configurable: ``create_app(limits=...)``, ``skitgubbe serve --limit
NAME=VALUE``): open tables, tables made a minute, sockets, searches at once, hints and
reviews waiting, the work a review may cost. A client is its address (an IPv6 address by
its /64), or, behind a reverse proxy the operator names (``trusted_proxies``), the
address that proxy says it forwarded (:func:`client_of`). docs/server.md lists every
bound with its default.

>>> limits = Limits.from_options(["open_tables_per_client=2"])
>>> limits.open_tables_per_client, limits.creates_per_minute_per_client
(2, 10)
"""

from __future__ import annotations

import collections
import ipaddress
import math
import os
import time
from collections.abc import Iterable, Sequence
from typing import Any, Final

import attrs

from ..errors import ArgumentError
from .errors import TableError
from .pool import client_key

__all__ = ["Counter", "Limits", "Network", "RateLimit", "client_of"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _positive(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ArgumentError(f"{attribute.name} must be a number > 0, not {value!r}")
    if attribute.type in (int, "int") and not isinstance(value, int):
        raise ArgumentError(f"{attribute.name} must be a whole number, not {value!r}")


def _networks(value: Iterable[str]) -> tuple[str, ...]:
    names = tuple(value)
    for name in names:
        try:
            ipaddress.ip_network(name, strict=False)
        except ValueError:
            raise ArgumentError(
                f"trusted_proxies: {name!r} is not an address or a network"
            ) from None
    return names


@attrs.frozen
class Limits:
    """The bounds on what clients may make the server do; each has a default that fits one
    core of this machine's size (docs/server.md, "What one client may do").

    Per client and in total: ``open_tables_per_client`` / ``open_tables`` (tables still
    waiting for people), ``creates_per_minute_per_client`` / ``creates_per_minute``
    (tables made, rematches included), ``sockets_per_client`` / ``sockets`` (websockets
    open), ``hints_per_client`` / ``hints`` (hint searches waiting or under way),
    ``reviews_per_client`` / ``review_decisions`` (reviews under way, and the decisions
    all reviews under way still have to analyse). ``live_tables`` bounds the open and
    running tables together; ``searches_per_client`` is how many of the ``search_threads``
    one client's tables may hold at once (so one client never holds them all);
    ``review_max_decisions`` is the most decisions of one seat a review analyses (a longer
    game's review is refused, saying so); ``max_decision_seconds`` the most CPU seconds a
    seat's bot may cost a decision (``None``: the default of
    :mod:`skitgubbe.server.config`). Times, in seconds: an open table nobody joins
    expires after ``open_table_ttl``; a finished table leaves memory ``finished_linger``
    after its end is public and nobody is connected to it, or ``finished_grace`` after
    its end is public whatever happens (it is served from the store from then on); a
    rematch seat stays reserved for its person for ``rematch_hold``.
    ``trusted_proxies`` are the addresses (or networks) of reverse proxies whose
    ``X-Forwarded-For`` the server believes (:func:`client_of`).

    >>> Limits().open_tables_per_client
    4
    >>> Limits(open_tables_per_client=0)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: open_tables_per_client must be a number > 0, not 0
    """

    open_tables_per_client: int = attrs.field(default=4, validator=_positive)
    open_tables: int = attrs.field(default=2_000, validator=_positive)
    live_tables: int = attrs.field(default=10_000, validator=_positive)
    creates_per_minute_per_client: int = attrs.field(default=10, validator=_positive)
    creates_per_minute: int = attrs.field(default=600, validator=_positive)
    sockets_per_client: int = attrs.field(default=64, validator=_positive)
    sockets: int = attrs.field(default=20_000, validator=_positive)
    search_threads: int = attrs.field(
        factory=lambda: max(2, os.cpu_count() or 2), validator=_positive
    )
    searches_per_client: int = attrs.field(default=1, validator=_positive)
    hints_per_client: int = attrs.field(default=2, validator=_positive)
    hints: int = attrs.field(default=64, validator=_positive)
    reviews_per_client: int = attrs.field(default=2, validator=_positive)
    review_decisions: int = attrs.field(default=2_000, validator=_positive)
    review_max_decisions: int = attrs.field(default=400, validator=_positive)
    max_decision_seconds: float | None = None
    open_table_ttl: float = attrs.field(default=600.0, validator=_positive)
    finished_linger: float = attrs.field(default=30.0, validator=_positive)
    finished_grace: float = attrs.field(default=600.0, validator=_positive)
    rematch_hold: float = attrs.field(default=120.0, validator=_positive)
    trusted_proxies: tuple[str, ...] = attrs.field(default=(), converter=_networks)

    @classmethod
    def from_options(cls, options: Sequence[str]) -> Limits:
        """Limits from ``NAME=VALUE`` strings (``skitgubbe serve --limit``), the defaults for
        the rest; ``trusted_proxies`` takes addresses or networks separated by commas.

        >>> Limits.from_options(["hints=10", "trusted_proxies=127.0.0.1,10.0.0.0/8"]).hints
        10
        >>> Limits.from_options(["tables=3"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: no limit named 'tables'; limits: creates_per_minute, ...
        """
        fields = {field.name: field for field in attrs.fields(cls)}
        values: dict[str, Any] = {}
        for option in options:
            name, equals, text = option.partition("=")
            if not equals:
                raise ArgumentError(f"a limit is NAME=VALUE, not {option!r}")
            if name not in fields:
                raise ArgumentError(f"no limit named {name!r}; limits: {', '.join(sorted(fields))}")
            if name == "trusted_proxies":
                values[name] = tuple(part.strip() for part in text.split(",") if part.strip())
                continue
            try:
                number = float(text)
            except ValueError:
                raise ArgumentError(f"limit {name} must be a number, not {text!r}") from None
            kind = fields[name].type
            whole = kind in (int, "int")
            if whole and not number.is_integer():
                raise ArgumentError(f"limit {name} must be a whole number, not {text!r}")
            values[name] = int(number) if whole else number
        return cls(**values)

    def networks(self) -> tuple[Network, ...]:
        """:attr:`trusted_proxies` as networks.

        >>> Limits(trusted_proxies=("127.0.0.1",)).networks()
        (IPv4Network('127.0.0.1/32'),)
        """
        return tuple(ipaddress.ip_network(name, strict=False) for name in self.trusted_proxies)


def _within(address: str, networks: Sequence[Network]) -> bool:
    try:
        parsed = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(parsed in network for network in networks)


def client_of(remote: str | None, forwarded: str | None, trusted: Sequence[Network]) -> str:
    """The client key (:func:`client_key`) of a request that came from ``remote`` with the
    header ``X-Forwarded-For: forwarded``: the header counts only when ``remote`` is a
    trusted proxy, and then the client is the last address in it that is not one (a client
    can put anything at the header's front, nothing behind the proxy's own entry).

    >>> proxy = Limits(trusted_proxies=("127.0.0.1",)).networks()
    >>> client_of("127.0.0.1", "203.0.113.9, 198.51.100.4", proxy)
    '198.51.100.4'
    >>> client_of("192.0.2.1", "198.51.100.4", proxy)  # not from the proxy: the header lies
    '192.0.2.1'
    """
    address = remote or ""
    if forwarded and trusted and _within(address, trusted):
        for hop in reversed(forwarded.split(",")):
            hop = hop.strip()
            if not _within(hop, trusted):
                address = hop
                break
    return client_key(address)


class RateLimit:
    """At most ``per_minute`` events a key in any 60 s, and ``total`` for all keys together
    (a sliding window: each key keeps the times of its last ``per_minute`` events, so its
    memory is bounded; keys with no event in the last minute are dropped by :meth:`prune`).

    >>> limit = RateLimit(per_minute=2, total=100)
    >>> limit.take("a", now=0.0); limit.take("a", now=1.0)
    >>> try:
    ...     limit.take("a", now=2.0)
    ... except TableError as error:
    ...     print(error.status, error.retry_after)
    429 58
    >>> limit.take("b", now=2.0)  # another client is not held up
    >>> limit.take("a", now=60.0)
    """

    WINDOW: Final = 60.0

    def __init__(self, per_minute: int, total: int, what: str = "tables made") -> None:
        self.per_minute = per_minute
        self.total = total
        self.what = what
        self._keys: dict[str, collections.deque[float]] = {}
        self._all: collections.deque[float] = collections.deque(maxlen=total)

    def take(self, key: str, now: float | None = None) -> None:
        """Count one event of ``key``, or refuse it (:class:`TableError` 429 for the key,
        503 for the total, with ``retry_after``) and count nothing."""
        clock = time.monotonic() if now is None else now
        events = self._keys.get(key)
        if events is not None and len(events) >= self.per_minute:
            wait = events[0] + self.WINDOW - clock
            if wait > 0:
                raise TableError(
                    f"at most {self.per_minute} {self.what} a minute from one client: "
                    f"try again in {math.ceil(wait)} s",
                    429,
                    retry_after=math.ceil(wait),
                )
        if len(self._all) >= self.total:
            wait = self._all[0] + self.WINDOW - clock
            if wait > 0:
                raise TableError(
                    f"the server takes at most {self.total} {self.what} a minute: "
                    f"try again in {math.ceil(wait)} s",
                    503,
                    retry_after=math.ceil(wait),
                )
        if events is None:
            events = self._keys[key] = collections.deque(maxlen=self.per_minute)
        events.append(clock)
        self._all.append(clock)

    def prune(self, now: float | None = None) -> None:
        """Forget the keys with no event in the last minute.

        >>> limit = RateLimit(per_minute=2, total=10)
        >>> limit.take("a", now=0.0)
        >>> limit.prune(now=61.0)
        >>> len(limit)
        0
        """
        clock = time.monotonic() if now is None else now
        for key in [k for k, events in self._keys.items() if events[-1] + self.WINDOW <= clock]:
            del self._keys[key]

    def __len__(self) -> int:
        return len(self._keys)


class Counter:
    """Things held per client (sockets), bounded per client and in total.

    >>> sockets = Counter(per_client=1, total=5, what="sockets")
    >>> sockets.acquire("a")
    >>> try:
    ...     sockets.acquire("a")
    ... except TableError as error:
    ...     print(error.status, error)
    429 at most 1 sockets open from one client
    >>> sockets.release("a"); sockets.acquire("a")
    """

    def __init__(self, per_client: int, total: int, what: str) -> None:
        self.per_client = per_client
        self.total = total
        self.what = what
        self._held: collections.Counter[str] = collections.Counter()
        self._total = 0

    def acquire(self, key: str) -> None:
        """Hold one more for ``key``, or refuse (429 for the client, 503 in total)."""
        if self._held[key] >= self.per_client:
            raise TableError(f"at most {self.per_client} {self.what} open from one client", 429)
        if self._total >= self.total:
            raise TableError(f"the server holds {self.total} {self.what} already", 503)
        self._held[key] += 1
        self._total += 1

    def release(self, key: str) -> None:
        """Give one back."""
        if self._held[key] > 0:
            self._held[key] -= 1
            self._total -= 1
        if self._held[key] <= 0:
            del self._held[key]

    def held(self, key: str | None = None) -> int:
        """How many are held (by ``key``, or in all)."""
        return self._total if key is None else self._held.get(key, 0)
