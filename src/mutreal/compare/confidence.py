"""How sure classify is of each fault component: one place that turns how it was found into a level.

A reader checking classify's output wants to know where to look first. Components whose finding
rests on weaker ground are the ones careful readers disagree on, so each component gets a
``confidence`` (``high`` / ``medium`` / ``low``) and a ``confidence_reason`` naming every fact that
lowered it. The facts come from the component itself (its ``change``, the value kind of each side,
recorded by :func:`mutreal.compare.components.make_component` in ``evidence``) and from its code:

- high: a changed literal or argument of two elements aligned one to one;
- each of these lowers it one level (two or more give low):
  an element added or removed with no counterpart; a side whose value is opaque (a variable, a
  call, an unknown expression: that one twice, as even whether it changed is a guess) or only
  source text; an alignment with several equally good
  matches (``evidence["ambiguous_alignment"]``); a code on a boundary the decision table draws as a
  judgement call (:data:`JUDGEMENT_GROUPS`, each checked against ``taxonomy/decisions.csv``).
"""

from __future__ import annotations

from functools import lru_cache

from mutreal.compare.components import FaultComponent

LEVELS: tuple[str, ...] = ("low", "medium", "high")

#: value kinds that say what the value is (a literal, a folded sequence, a Keras reference, a layer)
KNOWN_KINDS = frozenset({"const", "seq", "ref", "layer"})
#: value kinds that do not: what each is called in a reason
OPAQUE_KINDS = {
    "name": "a variable",
    "call": "a call",
    "opaque": "an unknown expression",
    "text": "source text only",
}

#: groups of codes between which the decision table's line is a judgement call: the study itself
#: labelled the same kind of change with either code of a group
JUDGEMENT_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"CPP", "IWS", "IWF"}),
    frozenset({"LRM", "LDM", "LAD"}),
    frozenset({"OCH", "HLR"}),
)


@lru_cache(maxsize=1)
def judgement_codes() -> frozenset[str]:
    """Codes of :data:`JUDGEMENT_GROUPS` whose boundary the decision table draws (a group the table
    no longer names lowers nothing)."""
    from mutreal.decisions import load_decisions

    boundaries = [d.boundary.replace("/", " ").replace("+", " ").split() for d in load_decisions()]
    codes: set[str] = set()
    for group in JUDGEMENT_GROUPS:
        for words in boundaries:
            named = group & set(words)
            if len(named) >= 2:
                codes |= named
    return frozenset(codes)


def lowering_facts(component: FaultComponent, code: str | None) -> list[str]:
    """The facts that lower a component's confidence, in words, most telling first."""
    facts: list[str] = []
    if component.evidence.get("best_code"):
        # decision best-code-statement: no pass modelled the element; the code is read from what the
        # changed statement touches, a guess on two counts
        facts += [
            f"best code from what the changed statement touches ({component.evidence['best_code']})",
            "no pass models this element",
        ]
    if component.change in ("added", "removed"):
        facts.append(f"{component.change} element with no counterpart")
    else:
        for side in ("before", "after"):
            kind = component.evidence.get(f"{side}_kind")
            if kind is not None and kind not in KNOWN_KINDS:
                facts.append(f"{side} value is {OPAQUE_KINDS.get(kind, kind)}")
                if kind == "opaque":  # nothing is known of it: whether it changed at all is a guess
                    facts.append(f"{side} value unresolved")
    if component.evidence.get("ambiguous_alignment"):
        facts.append("alignment with several equally good matches")
    if code and code.upper() in judgement_codes():
        facts.append(f"{code.upper()} is a judgement call in the decision table")
    return facts


def assess(component: FaultComponent, code: str | None) -> tuple[str, str | None]:
    """``(level, reason)`` of a component labelled ``code``; the reason is None when high."""
    facts = lowering_facts(component, code)
    level = LEVELS[max(0, 2 - len(facts))]
    return level, "; ".join(facts) or None


def set_confidence(component: FaultComponent, code: str | None) -> FaultComponent:
    """Write :func:`assess`'s level and reason onto the component (returned for chaining)."""
    component.confidence, component.confidence_reason = assess(component, code)
    return component
