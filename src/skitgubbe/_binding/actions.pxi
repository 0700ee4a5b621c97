# actions.pxi: the learners' action ids: moves to actions and back, legal actions.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


NUM_ACTIONS = SG_NUM_ACTIONS
SLOUGH_CARD_ACTION = SG_ACTION_SLOUGH_CARD
SLOUGH_DONE_ACTION = SG_ACTION_SLOUGH_DONE


def action_move(int action):
    """The move code action `action` plays alone, or None (a slough step, or out of range)."""
    cdef sg_move code = sg_action_move(action)
    return None if code == SG_NO_MOVE else code


def move_actions(uint64_t code):
    """The actions that play the move `code`, in order (empty: no action plays it)."""
    cdef uint16_t path[SG_MAX_ACTION_PATH]
    cdef int n = sg_move_actions(code, path)
    return tuple([path[i] for i in range(n)])


# The action ids as Python ints, made once: a tuple of legal actions shares them.
cdef tuple ACTION_INTS = tuple(range(SG_NUM_ACTIONS))


cdef tuple action_ids(const sg_state *st, uint64_t pending):
    """The legal actions, ascending, as a tuple of shared ints."""
    cdef uint16_t actions[SG_NUM_ACTIONS]
    cdef int n = sg_legal_actions(st, pending, actions)
    cdef int i
    cdef tuple out = PyTuple_New(n)
    for i in range(n):
        item = ACTION_INTS[actions[i]]
        Py_INCREF(item)
        PyTuple_SET_ITEM(out, i, item)
    return out


cdef tuple legal_actions_of(const sg_state *st, uint64_t pending):
    """(the legal actions ascending, their mask: bytes of SG_NUM_ACTIONS 0s and 1s)."""
    cdef uint16_t actions[SG_NUM_ACTIONS]
    cdef char mask[SG_NUM_ACTIONS]
    cdef int n = sg_legal_actions(st, pending, actions)
    cdef int i
    memset(mask, 0, SG_NUM_ACTIONS)
    for i in range(n):
        mask[actions[i]] = 1
    return tuple([actions[i] for i in range(n)]), mask[:SG_NUM_ACTIONS]


def view_actions(bytes view, uint64_t pending):
    """(legal actions ascending, mask bytes) of the player to move in a checked view."""
    cdef sg_state st
    load_view(&st, view)
    return legal_actions_of(&st, pending)
