"""The situation an answer assumed, in a player's words, for the header of the answer.

Two answers to different questions must never look alike: every field of the situation that
differs from its default is named, in the words its declaration gives (`model.Declared`), and every
answer names the rules edition and printing it used. An answer under another edition than the 10th also
names the Lethal Hits policy, what it assumes as in the 10th edition and what it takes from reports
rather than the rules text.
"""

from __future__ import annotations

from ..model import Context, declared_fields


def situation(context: Context) -> tuple[str, ...]:
    """Header lines naming each assumption of `context` that is not the default: the flags, then the rolls
    (those against the target together, where the first of them is declared), then the rules: the edition
    and printing, which every answer names, the default's too."""
    lines: dict[str, list[str | list[str]]] = {"situation": [], "rolls": [], "rules": []}
    against: list[str] = []
    cap = context.rules.definition.modifier_cap
    for field in declared_fields(type(context)):
        value = getattr(context, field.name)
        if value == field.default:
            continue
        words = field.declared.say(value)
        if not words:  # said by another field (the edition: by the rules)
            continue
        if field.declared.capped and abs(value) > cap:  # '--hit-mod 5': the roll is modified by +1 at most
            words += f" (counted as {cap if value > 0 else -cap:+d}: a roll's modifiers together are capped at ±{cap})"
        if field.declared.line == "against the target":
            if not against:
                lines["rolls"].append(against)  # filled in as the loop goes on
            against.append(words)
        else:
            lines[field.declared.line].append(words)
    if not lines["rules"]:  # the default rules: every answer names its edition and printing all the same
        lines["rules"].append(context.rules.describe())
    lines["rules"] += _edition_choices(context)
    told = {name: ", ".join(item if isinstance(item, str) else f"against the target: {', '.join(item)}"
                            for item in items) for name, items in lines.items() if items}
    return (*(f"  {name}: {text}" for name, text in told.items()), *_edition_sources(context))


def _edition_choices(context: Context) -> list[str]:
    """What the rules line adds for an edition other than the 10th: its Lethal Hits policy when not given,
    and what Heavy needs when the attacker is said to have remained stationary."""
    definition = context.rules.definition
    if definition.name == "10e":
        return []
    said = [] if context.lethal_hits is not None else \
        [f"Lethal Hits: {context.lethal_policy.value} ({context.lethal_policy.words})"]
    return said + ([f"Heavy's +1 to hit taken as {definition.heavy}"] if context.stationary else [])


def _edition_sources(context: Context) -> list[str]:
    """Lines of their own after the rules line, for an edition other than the 10th: what it assumes as in the
    10th edition, and each rule it takes from reports rather than the rules text (with where from)."""
    definition = context.rules.definition
    if definition.name == "10e":
        return []
    said = [f"  rules assumed as in the 10th edition: {'; '.join(definition.assumed)}"] if definition.assumed else []
    return said + [f"  rule reported, not read in the rules text: {text}" for text in definition.reported]
