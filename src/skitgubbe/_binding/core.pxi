# core.pxi: Core: a position of a game and its history (positions share their parents).
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


# Every CHECKPOINT-th position of a history keeps its state (see Core).
cdef enum:
    CHECKPOINT = 32
HISTORY_CHECKPOINT = CHECKPOINT


# Positions reference only older positions, moves and events, never a newer
# position: they cannot form a cycle, so the garbage collector need not track
# them (games keep thousands alive; tracking them costs every collection).
@cython.no_gc
@cython.freelist(64)
cdef class Core:
    """One game state of the C core.  Value semantics: copy() is a memcpy.

    A Core made by play() is also a step of a game's history: it keeps the
    position before (parent), the move that led here and that move's events.
    Positions never change as seen from outside, so games share them.

    A history keeps its memory proportionate to its moves: play() drops the
    state (and the unread events) of a step that only the step after it
    refers to, except every CHECKPOINT-th move and the start; such a step's
    state is played again from the nearest older one when it is read (undo,
    say), and its events from its parent's state.
    """

    @staticmethod
    def deal(tuple rules, bytes deck, int dealer):
        """The Core of a new game, its events those of the deal; raises CoreError on bad input."""
        cdef sg_rules r
        cdef sg_event buf[SG_MAX_EVENTS]
        cdef sg_events ev
        cdef Core core = Core.__new__(Core)
        fill_rules(&r, rules)
        if len(deck) != 52:
            raise CoreError(SG_ERROR_DECK, "a deck has 52 cards")
        if not 0 <= dealer < r.players:
            raise CoreError(SG_ERROR_SEAT, "dealer out of range")
        ev.buf = buf
        ev.cap = SG_MAX_EVENTS
        ev.len = 0
        code = sg_new(core.st, &r, deck, <uint8_t>dealer, &ev)
        if code != SG_ERROR_NONE:
            raise CoreError(code, "cannot deal")
        core._events = packed_events(buf, ev.len)
        return core

    @staticmethod
    def shedding(tuple rules, tuple hands, int trump, int leader):
        """The Core of a phase-2 position, with its events; raises CoreError on bad input."""
        cdef sg_rules r
        cdef uint64_t h[4]
        cdef sg_event buf[SG_MAX_EVENTS]
        cdef sg_events ev
        cdef Core core = Core.__new__(Core)
        fill_rules(&r, rules)
        if len(hands) != 4:
            raise CoreError(SG_ERROR_POSITION, "four hand masks expected")
        if not 0 <= leader < r.players or not 0 <= trump <= SG_NO_SUIT:
            raise CoreError(SG_ERROR_SEAT, "leader or trump out of range")
        for i in range(4):
            h[i] = hands[i]
        ev.buf = buf
        ev.cap = SG_MAX_EVENTS
        ev.len = 0
        code = sg_new_shedding(core.st, &r, h, <uint8_t>trump, <uint8_t>leader, &ev)
        if code != SG_ERROR_NONE:
            raise CoreError(code, "cannot set up this position")
        core._events = packed_events(buf, ev.len)
        return core

    def __cinit__(self):
        self.st = <sg_state *>PyMem_Malloc(sizeof(sg_state))
        if self.st == NULL:
            raise MemoryError()
        self._events = EMPTY_EVENTS

    def __dealloc__(self):
        PyMem_Free(self.st)
        self.st = NULL
        # Free the history one position after another: letting each position
        # free its parent would recurse as deep as the game is long.
        cdef Core node = self.parent
        cdef Core older
        self.parent = None
        while node is not None and Py_REFCNT(node) == 1:
            older = node.parent
            node.parent = None
            node = older  # frees the position node was: its parent is gone
            older = None  # so that node is again the only reference

    @property
    def move(self):
        """The move that led here (a shared Move object), or None at a game's start."""
        return None if self.parent is None else move_object(self.code)

    @property
    def events(self):
        """The events of the move that led here (of the deal, at a game's start)."""
        cdef sg_state st
        cdef sg_event buf[SG_MAX_EVENTS]
        cdef sg_events ev
        if self._events is None:
            core_state_into(self.parent, &st)
            ev.buf = buf
            ev.cap = SG_MAX_EVENTS
            ev.len = 0
            if sg_apply(&st, self.code, &ev) != SG_ERROR_NONE:
                raise CoreError(0, "a history step does not replay")  # a core bug
            self._events = packed_events(buf, ev.len)
        return self._events

    @property
    def kept(self):
        """Whether this position holds its state now (False: dropped, played again on use)."""
        return self.st != NULL

    def with_events(self, tuple events):
        """This state alone (see copy), its events `events`: a game's start when unpickled."""
        cdef Core other = self.copy()
        other._events = Events.of(events)
        return other

    def copy(self):
        """This state alone: no parent, no move, no events."""
        cdef Core other = Core.__new__(Core)
        memcpy(other.st, core_state(self), sizeof(sg_state))
        return other

    def legal_codes(self):
        """Legal move codes in the core's canonical order."""
        cdef sg_move moves[SG_MAX_MOVES]
        cdef int n = sg_legal_moves(core_state(self), moves)
        return [moves[i] for i in range(n)]

    def legal_move_objects(self):
        """The legal moves as the typed layer's shared Move objects (see share_moves)."""
        cdef sg_move moves[SG_MAX_MOVES]
        cdef int n = sg_legal_moves(core_state(self), moves)
        cdef int i
        cdef tuple out = PyTuple_New(n)
        for i in range(n):
            move = move_object(moves[i])
            Py_INCREF(move)
            PyTuple_SET_ITEM(out, i, move)
        return out

    def play(self, uint64_t code):
        """The position after the move with core code `code`, linked back to this one.

        The new Core records this Core as its parent, the move, and the move's
        events (an Events sequence); this Core is unchanged.  Raises CoreError
        when the move is not legal.  A slough being chosen (pending) is dropped.
        """
        cdef sg_event buf[SG_MAX_EVENTS]
        cdef sg_events ev
        cdef Core child = Core.__new__(Core)
        memcpy(child.st, core_state(self), sizeof(sg_state))
        ev.buf = buf
        ev.cap = SG_MAX_EVENTS
        ev.len = 0
        result = sg_apply(child.st, code, &ev)
        if result != SG_ERROR_NONE:
            raise CoreError(result, "illegal move" if result == SG_ERROR_ILLEGAL else "game over")
        return core_attach(core_settled(self), child, code, buf, ev.len)

    def state_tensor(self, tuple recent, float[::1] out):
        """Writes the whole state's tensor (STATE_TENSOR_SIZE floats) into `out`."""
        cdef sg_public_move moves[SG_TENSOR_RECENT]
        cdef int n = fill_recent(moves, recent)
        if out.shape[0] != STATE_TENSOR_SIZE:
            raise CoreError(SG_ERROR_POSITION, f"a state tensor has {STATE_TENSOR_SIZE} floats")
        sg_state_tensor(core_state(self), moves, n, &out[0])

    def legal_actions(self):
        """(the legal integer actions ascending, their mask as bytes), given the
        slough being chosen."""
        return legal_actions_of(core_state(self), self.pending)

    def __reduce__(self):
        return (from_snapshot, (self.snapshot(),))

    def apply(self, uint64_t move):
        """Plays `move` and returns its events; raises CoreError, unchanged, if illegal."""
        cdef sg_event buf[SG_MAX_EVENTS]
        cdef sg_events ev
        ev.buf = buf
        ev.cap = SG_MAX_EVENTS
        ev.len = 0
        code = sg_apply(core_state(self), move, &ev)
        if code != SG_ERROR_NONE:
            raise CoreError(code, "illegal move" if code == SG_ERROR_ILLEGAL else "game over")
        if ev.len > ev.cap:
            raise CoreError(0, "event buffer overflow")  # a core bug; caught by tests
        return events_list(buf, ev.len)

    def observe(self, int seat):
        """What `seat` may see (sg_observe), as a dict keyed by the names of the C
        struct sg_observation's fields, arrays cut to their length; plus
        "legal_moves", the seat's legal moves as shared Move objects when it is
        to move (else an empty tuple)."""
        cdef sg_observation o
        cdef int n, i
        if not 0 <= seat < core_state(self).rules.players:
            raise CoreError(SG_ERROR_SEAT, "seat out of range")
        sg_observe(core_state(self), <uint8_t>seat, &o)
        n = o.players
        return {
            "seat": o.seat,
            "players": n,
            "phase": o.phase,
            "to_move": o.to_move,
            "dealer": o.dealer,
            "trump": o.trump,
            "hand": o.hand,
            "collection": o.collection,
            "table_cards": tuple([o.table_cards[i] for i in range(o.n_table_plays)]),
            "table_seat": tuple([o.table_seat[i] for i in range(o.n_table_plays)]),
            "hand_sizes": tuple([o.hand_sizes[i] for i in range(n)]),
            "collection_sizes": tuple([o.collection_sizes[i] for i in range(n)]),
            "stock_size": o.stock_size,
            "out_of_play": o.out_of_play,
            "hidden_holder": o.hidden_holder,
            "known": tuple([o.known[i] for i in range(n)]),
            "unknown": o.unknown,
            "unknown_slots": tuple([o.unknown_slots[i] for i in range(n)]),
            "stock_slots": o.stock_slots,
            "hidden_slots": o.hidden_slots,
            "finished": tuple([o.finished[i] for i in range(o.n_finished)]),
            "moves_played": o.moves_played,
            "upcard": o.upcard,
            "slough_winner": o.slough_winner,
            "legal_moves": self.legal_move_objects() if o.to_move == seat else (),
        }

    def result(self):
        """How the game ended (sg_game_result) as a dict keyed by the names of the
        C struct sg_result's fields, or None while it goes on."""
        cdef sg_result r
        cdef int i
        if sg_game_result(core_state(self), &r) != SG_ERROR_NONE:
            return None
        return {
            "loser": r.loser,
            "finish_order": tuple([r.finish_order[i] for i in range(r.n_finish)]),
            "truncated": bool(r.truncated),
            "moves": r.moves,
        }

    def why_illegal(self, uint64_t move):
        """(reason, detail) for `move` (sg_why_illegal): the reason's name
        ("none" when the move is legal) and its detail mask or number."""
        cdef uint64_t detail = 0
        reason = sg_why_illegal(core_state(self), move, &detail)
        return sg_illegal_name(reason).decode(), detail

    def view(self, int seat):
        """What `seat` knows, as the raw bytes of a view state (see sg_view)."""
        cdef sg_state view
        if not 0 <= seat < core_state(self).rules.players:
            raise CoreError(SG_ERROR_SEAT, "seat out of range")
        sg_view(core_state(self), <uint8_t>seat, &view)
        return (<char *>&view)[:sizeof(sg_state)]

    def table_plays(self):
        """The plays on the table, bottom first, as (seat, card mask)."""
        cdef int i
        cdef list plays = []
        cdef uint64_t mask = 0
        for i in range(core_state(self).table_len):
            if i and core_state(self).table_play[i] != core_state(self).table_play[i - 1]:
                plays.append((core_state(self).table_seat[i - 1], mask))
                mask = 0
            mask |= (<uint64_t>1) << core_state(self).table[i]
        if core_state(self).table_len:
            plays.append((core_state(self).table_seat[core_state(self).table_len - 1], mask))
        return plays

    def table(self):
        """Table cards bottom first as (card, seat, play number)."""
        cdef int i
        return [(core_state(self).table[i], core_state(self).table_seat[i], core_state(self).table_play[i])
                for i in range(core_state(self).table_len)]

    def stock(self):
        """Remaining stock card indices, top first."""
        return bytes(core_state(self).stock[core_state(self).stock_top:core_state(self).stock_len])

    def snapshot(self):
        """The raw state as bytes (for equality checks in tests)."""
        return (<char *>core_state(self))[:sizeof(sg_state)]

    def __eq__(self, other):
        if not isinstance(other, Core):
            return NotImplemented
        return memcmp(core_state(self), core_state(<Core>other), sizeof(sg_state)) == 0

    def __hash__(self):
        return hash(self.snapshot())

    @property
    def players(self):
        return core_state(self).rules.players

    @property
    def rules(self):
        """The core's numbers of this game's rules, in the table's order."""
        return rules_values(&core_state(self).rules)

    @property
    def phase(self):
        return core_state(self).phase

    @property
    def to_move(self):
        return core_state(self).to_move

    @property
    def dealer(self):
        return core_state(self).dealer

    @property
    def leader(self):
        return core_state(self).leader

    @property
    def follower(self):
        return core_state(self).follower

    @property
    def trump(self):
        return core_state(self).trump

    @property
    def trump_public(self):
        return bool(core_state(self).trump_public)

    @property
    def upcard(self):
        return core_state(self).upcard

    @property
    def slough_winner(self):
        return core_state(self).winner if core_state(self).window else SG_NO_SEAT

    @property
    def hidden_card(self):
        return core_state(self).hidden_card

    @property
    def hidden_holder(self):
        return core_state(self).hidden_holder

    @property
    def last_drawer(self):
        return core_state(self).last_drawer

    @property
    def trick_target(self):
        return core_state(self).trick_target

    @property
    def moves(self):
        return core_state(self).moves

    @property
    def loser(self):
        return core_state(self).loser

    @property
    def truncated(self):
        return bool(core_state(self).truncated)

    @property
    def finished(self):
        return tuple(core_state(self).finished[i] for i in range(core_state(self).n_finished))

    @property
    def stock_count(self):
        return core_state(self).stock_len - core_state(self).stock_top

    @property
    def out(self):
        return core_state(self).out

    @property
    def hands(self):
        n = core_state(self).rules.players
        return tuple(core_state(self).hand[i] for i in range(n))

    @property
    def collections(self):
        n = core_state(self).rules.players
        return tuple(core_state(self).coll[i] for i in range(n))

    @property
    def known(self):
        n = core_state(self).rules.players
        return tuple(core_state(self).known[i] for i in range(n))



# The history's helpers (functions, not methods: a Core has no method table to carry).

cdef sg_state *core_state(Core self) except NULL:
    """This position's state, played again (and kept) if it was dropped.

    The steps between the nearest older state and this one are kept too, so
    that undoing move after move replays each step once.
    """
    cdef Core node = self
    cdef Core step
    cdef sg_state *st
    cdef list path
    if self.st != NULL:
        return self.st
    path = []
    while node.st == NULL:
        path.append(node)
        node = node.parent  # the start always keeps its state
    for step in reversed(path):
        st = <sg_state *>PyMem_Malloc(sizeof(sg_state))
        if st == NULL:
            raise MemoryError()
        memcpy(st, node.st, sizeof(sg_state))
        if sg_apply(st, step.code, NULL) != SG_ERROR_NONE:
            PyMem_Free(st)
            raise CoreError(0, "a history step does not replay")  # a core bug
        step.st = st
        node = step
    return self.st


cdef int core_state_into(Core self, sg_state *out) except -1:
    """Writes this position's state to `out` without keeping what is played again."""
    cdef Core node = self
    cdef list codes = []
    while node.st == NULL:
        codes.append(node.code)
        node = node.parent
    memcpy(out, node.st, sizeof(sg_state))
    for code in reversed(codes):
        if sg_apply(out, code, NULL) != SG_ERROR_NONE:
            raise CoreError(0, "a history step does not replay")  # a core bug
    return 0


cdef Core core_settled(Core self):
    """This position without a slough being chosen (self when there is none)."""
    cdef Core other
    if self.pending == 0:
        return self
    other = Core.__new__(Core)
    memcpy(other.st, core_state(self), sizeof(sg_state))
    other.parent = self.parent
    other.code = self.code
    other._events = self._events
    other.views = self.views
    return other


cdef Core core_attach(Core self, Core child, sg_move code, const sg_event *buf, int n):
    """Links `child`, the position after move `code` with events buf[:n], to this one."""
    cdef Core older = self.parent
    cdef Events events
    if n > SG_MAX_EVENTS:
        raise CoreError(0, "event buffer overflow")  # a core bug; caught by tests
    child.parent = self
    child.code = code
    child._events = packed_events(buf, n)
    # Drop the state of the step before this one when nothing but this one
    # refers to it (two references: self.parent and `older`); a game, a
    # copy or a reader holding it keeps it whole.  Its events go too unless
    # someone holds them (two references: older._events and `events`).
    if (older is not None and older.parent is not None and older.st != NULL
            and older.st.moves % CHECKPOINT != 0 and Py_REFCNT(older) == 2):
        PyMem_Free(older.st)
        older.st = NULL
        events = older._events
        if Py_REFCNT(events) == 2:
            older._events = None
    return child


cdef Core core_play_action(Core self, object action):
    """The position after integer action `action` (see skitgubbe.h).

    A slough step gives this position again with the card added to the
    slough being chosen (`pending`); the last step and every other action
    give the position after the move, as Core.play() does.  Raises CoreError
    when the action is not legal; `self` is unchanged.
    """
    cdef sg_event buf[SG_MAX_EVENTS]
    cdef sg_events ev
    cdef Core child
    cdef uint64_t pending = self.pending
    cdef sg_move code = SG_NO_MOVE
    cdef long id
    cdef int result
    if type(action) is not int:  # a bool, a float, numpy's ints: the caller says why
        raise TypeError("an action id is an int")
    id = action  # OverflowError past a C long
    if not 0 <= id < SG_NUM_ACTIONS:
        raise CoreError(SG_ERROR_ILLEGAL, "no such action")
    child = Core.__new__(Core)
    memcpy(child.st, core_state(self), sizeof(sg_state))
    if id == SG_ACTION_SLOUGH_DONE:
        code = ((<uint64_t>SG_MOVE_KIND_SLOUGH) << 61) | pending
    elif id < SG_ACTION_SLOUGH_CARD:
        code = sg_action_move(<int>id)
    ev.buf = buf
    ev.cap = SG_MAX_EVENTS
    ev.len = 0
    result = sg_apply_action(child.st, &pending, <int>id, &ev)
    if result != SG_ERROR_NONE:
        raise CoreError(result, "illegal action" if result == SG_ERROR_ILLEGAL else "game over")
    if pending:  # a slough step: the same position, one more card chosen
        child.parent = self.parent
        child.code = self.code
        child._events = self._events
        child.views = self.views
        child.pending = pending
        return child
    return core_attach(core_settled(self), child, code, buf, ev.len)
