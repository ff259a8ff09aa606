"""One module per stage of the attack sequence; each is a small operator on exact odds or PMFs."""
