"""The situation an answer assumed, in a player's words, for the header of the answer.

Two answers to different questions must never look alike: every field of the situation that
differs from its default is named, in the words its declaration gives (`model.Declared`).
"""

from __future__ import annotations

from ..model import Context, declared_fields


def situation(context: Context) -> tuple[str, ...]:
    """Header lines naming each assumption of `context` that is not the default (none for the
    default situation): the flags, then the rolls (those against the target together, where the
    first of them is declared), then the rules printing."""
    lines: dict[str, list[str | list[str]]] = {"situation": [], "rolls": [], "rules": []}
    against: list[str] = []
    for field in declared_fields(type(context)):
        value = getattr(context, field.name)
        if value == field.default:
            continue
        words = field.declared.say(value)
        if field.declared.line == "against the target":
            if not against:
                lines["rolls"].append(against)  # filled in as the loop goes on
            against.append(words)
        else:
            lines[field.declared.line].append(words)
    told = {name: ", ".join(item if isinstance(item, str) else f"against the target: {', '.join(item)}"
                            for item in items) for name, items in lines.items() if items}
    return tuple(f"  {name}: {text}" for name, text in told.items())
