# rules.pxi: the rule table: its fields, presets, checks and the reasons for an illegal move.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


_RULE_KINDS = ("int", "bool", "enum", "optional_int")
RULES_PRESETS = ("classic", "modern")


def rule_fields():
    """The C core's table of rule fields, in table order: one dict per field
    (name, kind, min, max, step, classic, values, doc), converted by name."""
    cdef int count = 0
    cdef const sg_rule_field *fields = sg_rule_fields(&count)
    cdef int i
    cdef uint32_t v
    out = []
    for i in range(count):
        entry = fields[i]
        out.append({
            "name": entry.name.decode(),
            "kind": _RULE_KINDS[entry.kind],
            "min": entry.min,
            "max": entry.max,
            "step": entry.step,
            "classic": entry.classic,
            "values": tuple([entry.values[v].decode() for v in range(entry.n_values)]),
            "doc": entry.doc.decode(),
        })
    return tuple(out)


cdef int fill_rules(sg_rules *r, tuple values) except -1:
    """Set every field of r from `values`, the core's numbers in table order."""
    cdef int count = 0
    cdef int i
    sg_rule_fields(&count)
    if len(values) != count:
        raise CoreError(SG_ERROR_RULES, f"the core has {count} rule fields, not {len(values)}")
    memset(r, 0, sizeof(sg_rules))
    for i in range(count):
        if sg_rules_set(r, i, values[i]) != SG_RULES_ERROR_NONE:
            raise CoreError(SG_ERROR_RULES, f"rule field {i} cannot be {values[i]!r}")
    return 0


cdef tuple rules_values(const sg_rules *r):
    cdef int count = 0
    sg_rule_fields(&count)
    return tuple([sg_rules_get(r, i) for i in range(count)])


def rules_preset(str name, int players):
    """The core's numbers of preset `name` ("classic" or "modern") for `players`, in table order."""
    cdef sg_rules r
    if not 2 <= players <= SG_MAX_PLAYERS:
        raise CoreError(SG_ERROR_RULES, f"no preset for {players} players")
    memset(&r, 0, sizeof(sg_rules))
    if name == "classic":
        sg_rules_classic(&r, <uint8_t>players)
    elif name == "modern":
        sg_rules_modern(&r, <uint8_t>players)
    else:
        raise CoreError(SG_ERROR_RULES, f"no preset called {name!r}")
    return rules_values(&r)


def rules_check(tuple rules):
    """(code, field) for the core's numbers of a set of rules: code 0 = fine,
    else RULES_CONFLICT or RULES_BAD_VALUE and the field the core names."""
    cdef sg_rules r
    cdef const char *field = NULL
    fill_rules(&r, rules)
    code = sg_rules_check(&r, &field)
    return code, (field.decode() if field != NULL else None)


def illegal_reasons():
    """The names of every reason sg_why_illegal can give, in the core's order."""
    cdef int i = 0
    names = []
    while sg_illegal_name(i) != NULL:
        names.append(sg_illegal_name(i).decode())
        i += 1
    return tuple(names)
