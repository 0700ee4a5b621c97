# events.pxi: Events: a position's events, decoded lazily into skitgubbe.Event objects.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


cdef object EVENT_DECODER = None


def share_event_decoder(decoder):
    """Register the callable that turns packed raw events (bytes) into a tuple of Events."""
    global EVENT_DECODER
    EVENT_DECODER = decoder


@cython.no_gc
@cython.freelist(64)
cdef class Events:
    """The events one move caused, in order: an immutable sequence of Event objects.

    Game.play returns one.  The engine hands a move's events over packed; they
    become Event objects only when first read, so a loop that ignores them does
    not pay for them.  Equal to a tuple (or another Events) of the same events.
    """

    @staticmethod
    def of(tuple items):
        """Events holding `items` (already decoded)."""
        cdef Events events = Events.__new__(Events)
        events.items = items
        return events

    cdef tuple all(self):
        if self.items is None:
            if self.n_inline:
                self.items = EVENT_DECODER(
                    (<const char *>self.inline)[:self.n_inline * sizeof(sg_event)])
                self.n_inline = 0
            else:
                self.items = EVENT_DECODER(self.raw)
                self.raw = None
        return self.items

    def __len__(self):
        return len(self.all())

    def __getitem__(self, index):
        return self.all()[index]

    def __iter__(self):
        return iter(self.all())

    def __contains__(self, item):
        return item in self.all()

    def __eq__(self, other):
        if isinstance(other, Events):
            return self.all() == (<Events>other).all()
        if isinstance(other, tuple):
            return self.all() == other
        return NotImplemented

    def __hash__(self):
        return hash(self.all())

    def __repr__(self):
        return f"Events({list(self.all())!r})"

    def __reduce__(self):
        return (Events.of, (self.all(),))


cdef Events packed_events(const sg_event *buf, int n):
    cdef Events events = Events.__new__(Events)
    if 0 < n <= EVENTS_INLINE:  # most moves: one allocation, not two
        memcpy(events.inline, buf, n * sizeof(sg_event))
        events.n_inline = n
    else:
        events.raw = (<const char *>buf)[:n * sizeof(sg_event)]
    return events


cdef EMPTY_EVENTS = Events.of(())


import collections.abc
collections.abc.Sequence.register(Events)
