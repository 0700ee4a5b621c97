# protocol.pxi: the engine protocol's bytes: card texts read in C, and the go and events
# lines written in C by the plans skitgubbe.engine.wire makes of its table of fields.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


# -- card texts of the engine protocol (skitgubbe.protocol): "2C" ... "10D" ... "AS" ------

cdef const char *PROTOCOL_RANKS = b"23456789TJQKA"
cdef const char *PROTOCOL_SUITS = b"CDHS"


cdef inline int protocol_card_code(str text):
    """The card code of one card's protocol text, or -1 for any other text."""
    cdef Py_ssize_t n = len(text)
    cdef Py_UCS4 r, s
    cdef int rank
    if n == 2:
        r = text[0]
        s = text[1]
        if u'2' <= r <= u'9':
            rank = <int>r - <int>u'0'
        elif r == u'J':
            rank = 11
        elif r == u'Q':
            rank = 12
        elif r == u'K':
            rank = 13
        elif r == u'A':
            rank = 14
        else:
            return -1
    elif n == 3:
        if text[0] != u'1' or text[1] != u'0':
            return -1
        rank = 10
        s = text[2]
    else:
        return -1
    if s == u'C':
        return rank - 2
    if s == u'D':
        return 16 + rank - 2
    if s == u'H':
        return 32 + rank - 2
    if s == u'S':
        return 48 + rank - 2
    return -1


def protocol_card_mask(texts):
    """The mask of a list of card texts exactly as the engine protocol writes them
    ("10D", "QS"); None for anything else (not a list, not str, another spelling)."""
    cdef uint64_t mask = 0
    cdef int code
    if type(texts) is not list:
        return None
    for text in <list>texts:
        if type(text) is not str:
            return None
        code = protocol_card_code(<str>text)
        if code < 0:
            return None
        mask |= (<uint64_t>1) << code
    return mask


# -- the referee's lines of the engine protocol, written in C by the plans skitgubbe.engine.wire
# makes of its table of fields (skitgubbe.protocol's encode_go and encode_events), byte
# for byte what json writes of the messages ----------------------------------------------

cdef const char *BASE64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


cdef struct Text:
    char *data
    Py_ssize_t n
    Py_ssize_t cap


cdef int text_reserve(Text *t, Py_ssize_t more) except -1:
    cdef Py_ssize_t cap
    cdef char *grown
    if t.n + more <= t.cap:
        return 0
    cap = max(2 * t.cap, t.n + more, 4096)
    grown = <char *>realloc(t.data, cap)
    if grown == NULL:
        raise MemoryError()
    t.data = grown
    t.cap = cap
    return 0


cdef inline int text_add(Text *t, const char *s, Py_ssize_t k) except -1:
    text_reserve(t, k)
    memcpy(t.data + t.n, s, k)
    t.n += k
    return 0


cdef inline int text_ascii(Text *t, str s) except -1:
    cdef Py_ssize_t k
    cdef const char *utf8 = PyUnicode_AsUTF8AndSize(s, &k)
    return text_add(t, utf8, k)


cdef int text_int(Text *t, object value) except -1:
    """An int as json writes it (a bool or any other value is refused)."""
    cdef char digits[24]
    cdef int k = 24
    cdef long long x
    cdef unsigned long long u
    if type(value) is not int:
        raise TypeError(f"an int, not {type(value).__name__}")
    try:
        x = value
    except OverflowError:
        return text_ascii(t, str(value))
    u = (<unsigned long long>0 - <unsigned long long>x) if x < 0 else <unsigned long long>x
    while True:
        k -= 1
        digits[k] = <char>(48 + u % 10)
        u //= 10
        if u == 0:
            break
    if x < 0:
        k -= 1
        digits[k] = b'-'
    return text_add(t, digits + k, 24 - k)


cdef inline int text_seat(Text *t, object value) except -1:
    if value is None:
        return text_add(t, b"null", 4)
    return text_int(t, value)


cdef int text_ints(Text *t, object values) except -1:
    cdef bint first = True
    text_add(t, b"[", 1)
    for value in values:
        if not first:
            text_add(t, b",", 1)
        first = False
        text_int(t, value)
    return text_add(t, b"]", 1)


cdef int text_cards(Text *t, object cards) except -1:
    """The JSON list of the protocol texts of a CardSet's (or Card's) cards, ascending
    by code: '["2C","10D","AS"]'."""
    cdef uint64_t mask = cards.mask
    cdef uint64_t bits
    cdef int suit, rank
    cdef bint first = True
    if mask & ~SG_ALL_CARDS:
        raise ValueError(f"not a card mask: {mask:#x}")
    text_reserve(t, 2 + 6 * 52)
    t.data[t.n] = b'['
    t.n += 1
    for suit in range(4):
        bits = (mask >> (16 * suit)) & 0x1FFF
        rank = 0
        while bits:
            if bits & 1:
                if not first:
                    t.data[t.n] = b','
                    t.n += 1
                first = False
                t.data[t.n] = b'"'
                if rank == 8:
                    t.data[t.n + 1] = b'1'
                    t.data[t.n + 2] = b'0'
                    t.n += 3
                else:
                    t.data[t.n + 1] = PROTOCOL_RANKS[rank]
                    t.n += 2
                t.data[t.n] = PROTOCOL_SUITS[suit]
                t.data[t.n + 1] = b'"'
                t.n += 2
            bits >>= 1
            rank += 1
    t.data[t.n] = b']'
    t.n += 1
    return 0


cdef int text_suit(Text *t, object suit) except -1:
    cdef int s
    if suit is None:
        return text_add(t, b"null", 4)
    s = suit
    if not 0 <= s < 4:
        raise ValueError(f"not a suit: {s}")
    text_add(t, b'"', 1)
    text_add(t, PROTOCOL_SUITS + s, 1)
    return text_add(t, b'"', 1)


cdef int text_base64(Text *t, bytes raw) except -1:
    cdef const unsigned char *p = <const unsigned char *>raw
    cdef Py_ssize_t k = len(raw)
    cdef Py_ssize_t i = 0
    cdef uint32_t v
    cdef char *out
    text_reserve(t, 4 * ((k + 2) // 3))
    out = t.data + t.n
    while i + 2 < k:
        v = (<uint32_t>p[i] << 16) | (<uint32_t>p[i + 1] << 8) | p[i + 2]
        out[0] = BASE64[v >> 18]
        out[1] = BASE64[(v >> 12) & 63]
        out[2] = BASE64[(v >> 6) & 63]
        out[3] = BASE64[v & 63]
        out += 4
        i += 3
    if i < k:
        v = <uint32_t>p[i] << 16
        if i + 1 < k:
            v |= <uint32_t>p[i + 1] << 8
        out[0] = BASE64[v >> 18]
        out[1] = BASE64[(v >> 12) & 63]
        out[2] = BASE64[(v >> 6) & 63] if i + 1 < k else b'='
        out[3] = b'='
        out += 4
    t.n = out - t.data
    return 0


cdef inline int text_key(Text *t, const char *key) except -1:
    """A constant piece of JSON, NUL-terminated."""
    return text_add(t, key, strlen(key))


# The writers of the values of skitgubbe.engine.wire's kinds, by number: a plan names each
# field's writer by its index in WIRE_WRITERS (skitgubbe.engine.wire.line_plan).
WIRE_WRITERS = ("int", "seat_or_null", "suit_or_null", "cards", "card_or_null", "ints",
                "card_sets", "enum", "base64", "number", "record", "records", "raw_list")

cdef enum:
    W_INT, W_SEAT_OR_NULL, W_SUIT_OR_NULL, W_CARDS, W_CARD_OR_NULL, W_INTS, W_CARD_SETS
    W_ENUM, W_BASE64, W_NUMBER, W_RECORD, W_RECORDS, W_RAW_LIST


cdef int text_number(Text *t, object value, object fallback) except -1:
    """A number or None as json writes it: a finite float as its repr, an int as
    text_int; anything else (inf, nan, a subclass) by `fallback` (json's encode)."""
    if value is None:
        return text_add(t, b"null", 4)
    if type(value) is float and value - value == 0.0:
        return text_ascii(t, float.__repr__(value))
    if type(value) is int:
        return text_int(t, value)
    return text_ascii(t, fallback(value))


cdef int text_value(Text *t, int writer, object extra, object value) except -1:
    cdef bint first = True
    cdef Py_ssize_t start
    if writer == W_INT:
        return text_int(t, value)
    if writer == W_SEAT_OR_NULL:
        return text_seat(t, value)
    if writer == W_SUIT_OR_NULL:
        return text_suit(t, value)
    if writer == W_CARDS:
        return text_cards(t, value)
    if writer == W_CARD_OR_NULL:
        if value is None:
            return text_add(t, b"null", 4)
        start = t.n
        text_cards(t, value)  # a Card's one-card mask: '["7H"]', less its brackets
        memmove(t.data + start, t.data + start + 1, t.n - start - 2)
        t.n -= 2
        return 0
    if writer == W_INTS:
        return text_ints(t, value)
    if writer == W_CARD_SETS:
        text_add(t, b"[", 1)
        for cards in value:
            if not first:
                text_add(t, b",", 1)
            first = False
            text_cards(t, cards)
        return text_add(t, b"]", 1)
    if writer == W_ENUM:
        text = <bytes>(<tuple>extra)[value]
        return text_add(t, text, len(text))
    if writer == W_BASE64:
        text_add(t, b'"', 1)
        text_base64(t, value)
        return text_add(t, b'"', 1)
    if writer == W_NUMBER:
        return text_number(t, value, extra)
    if writer == W_RECORD:
        return text_record(t, <tuple>extra, value)
    if writer == W_RECORDS:
        text_add(t, b"[", 1)
        for item in value:
            if not first:
                text_add(t, b",", 1)
            first = False
            text_record(t, <tuple>extra, item)
        return text_add(t, b"]", 1)
    if writer == W_RAW_LIST:
        text_add(t, b"[", 1)
        text_ascii(t, value)
        return text_add(t, b"]", 1)
    raise ValueError(f"no writer {writer}")


cdef int text_record(Text *t, tuple plan, object source) except -1:
    """One JSON object by a plan of skitgubbe.engine.wire: (steps, closing bytes), each step
    (the bytes before the value, its attribute name or index in `source`, the writer's
    number, the writer's table)."""
    cdef tuple step
    cdef bytes piece
    for step in <tuple>plan[0]:
        piece = <bytes>step[0]
        text_add(t, piece, len(piece))
        getter = step[1]
        value = source[getter] if type(getter) is int else getattr(source, getter)
        text_value(t, step[2], step[3], value)
    piece = <bytes>plan[1]
    return text_add(t, piece, len(piece))


def protocol_line(tuple plan, tuple values):
    """One line of the engine protocol by a plan of skitgubbe.engine.wire.line_plan, with the
    message's values in its table's order."""
    cdef Text t
    t.data = NULL
    t.n = 0
    t.cap = 0
    try:
        text_record(&t, plan, values)
        return PyBytes_FromStringAndSize(t.data, t.n)
    finally:
        free(t.data)
