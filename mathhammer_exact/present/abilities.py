"""The weapon abilities table of docs/rules.md, made from the abilities' declarations.

Regenerate with: python -m mathhammer_exact.present.abilities (a test checks docs/rules.md holds it).

>>> print(ability_table().splitlines()[0])
| ability | weapons | needs | acts on | what it does |
"""

from __future__ import annotations

from ..abilities import Edition
from ..model import TENTH_EDITION, Context, declared_fields

#: What each stage an ability acts in is, in a player's words.
_STAGE_WORDS = {"attacks": "attacks", "hit": "hit roll", "wound": "wound roll", "save": "saving throw",
                "damage": "damage", "allocation": "allocation", "sequence": "the unit's attacks",
                "unit": "weapons chosen"}


def ability_table(edition: Edition = TENTH_EDITION) -> str:
    """A Markdown table of `edition`'s weapon abilities: how each is written, which weapons may have
    it, the situation options it reads, what it acts on and what it does."""
    options = {field.name: field.declared.option for field in declared_fields(Context)}
    rows = ["| ability | weapons | needs | acts on | what it does |", "|---|---|---|---|---|"]
    for ability in edition:
        needs = ", ".join(f"`{options[name]}`" for name in ability.needs)
        rows.append(f"| `{ability.form}` | {'ranged' if ability.ranged_only else 'any'} | {needs} | "
                    f"{_STAGE_WORDS[ability.stage]} | {ability.rule} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(ability_table(), end="")
