"""Decisions, not just distributions: several weapons, comparisons, points, how many is enough,
the best order and split, a whole turn, and how a unit fares against standard attackers.

Every answer here is a composition of exact `attack()` queries (the one entry point of the
engine); nothing in this package re-implements the attack sequence.
"""
