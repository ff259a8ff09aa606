"""The situation an answer assumed, in a player's words, for the header of the answer.

Two answers to different questions must never look alike: every flag, modifier, re-roll and
rules printing that differs from the plain default is named.
"""

from __future__ import annotations

from ..model import CommandReroll, Context, DamageReroll, Reroll

FLAGS = {  #: Context flag -> what it means at the table
    "half_range": "within half range",
    "cover": "target has the Benefit of Cover",
    "charged": "attacker charged",
    "stationary": "attacker Remained Stationary",
    "advanced": "attacker Advanced",
    "overwatch": "Fire Overwatch",
    "indirect": "target not visible (Indirect Fire)",
    "engaged": "target within Engagement Range of your army",
    "beyond_conversion_range": "target beyond Conversion range",
}
REROLLS = {Reroll.ONES: "re-roll {} rolls of 1", Reroll.FAILED: "re-roll failed {} rolls",
           Reroll.NONCRIT: "re-roll {} rolls that are not critical"}
COMMAND_REROLL = {CommandReroll.ATTACKS: "attacks roll", CommandReroll.HIT: "hit roll",
                  CommandReroll.WOUND: "wound roll", CommandReroll.SAVE: "saving throw",
                  CommandReroll.DAMAGE: "damage roll"}


def situation(context: Context) -> tuple[str, ...]:
    """Header lines naming each assumption of `context` that is not the default (none for the
    default situation): the flags, then the rolls, then the rules printing."""
    flags = [text for flag, text in FLAGS.items() if getattr(context, flag)]
    rolls = [f"+{context.extra_attacks} attacks per model"] if context.extra_attacks else []
    rolls += [f"{roll} roll {modifier:+d}" for roll, modifier in (("hit", context.hit_modifier),
                                                                   ("wound", context.wound_modifier)) if modifier]
    rolls += [REROLLS[policy].format(roll) for roll, policy in (("hit", context.reroll_hits),
                                                                ("wound", context.reroll_wounds)) if policy]
    if context.critical_hit != 6:
        rolls.append(f"Critical Hits on {context.critical_hit}+")
    if context.critical_wound != 6:
        rolls.append(f"Critical Wounds on {context.critical_wound}+")
    if context.critical_mortals is not None:
        rolls.append(context.critical_mortals.describe())
    if context.damage_bonus:
        rolls.append(f"Damage +{context.damage_bonus}")
    if context.reroll_damage is not DamageReroll.NONE:
        rolls.append(context.reroll_damage.words)
    against = [f"wound roll {context.wound_modifier_against:+d}"] if context.wound_modifier_against else []
    against += [f"AP worsened by {context.worsen_ap}"] if context.worsen_ap else []
    against += [f"saving throw {context.save_modifier:+d}"] if context.save_modifier else []
    against += [REROLLS[context.reroll_saves].format("save")] if context.reroll_saves else []
    if against:
        rolls.append(f"against the target: {', '.join(against)}")
    if context.command_reroll is not None:
        rolls.append(f"a Command Re-roll kept for the {COMMAND_REROLL[context.command_reroll]}")
    printing = context.rules.differences()
    lines = [f"situation: {', '.join(flags)}"] if flags else []
    lines += [f"rolls: {', '.join(rolls)}"] if rolls else []
    lines += [f"rules: {context.rules.name or 'a mix of printings'} ({', '.join(printing)})"] if printing else []
    return tuple(f"  {line}" for line in lines)
