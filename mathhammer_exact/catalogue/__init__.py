"""Every unit in the game, read at run time from the player's own files: a BattleScribe data checkout
(indexed once into SQLite) or an exported army list (.ros/.rosz, or New Recruit's .json). Nothing of that data
ships with the program."""

ARMY_LISTS = (".ros", ".rosz", ".json")  #: the endings of army-list files, named as FILE#UNIT
