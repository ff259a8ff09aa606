"""Rules as data: the datasheet and named-rule types every source of units produces, names as players type
them, and the shipped rules/ folder (with a player's own layered over it) as one such source."""
