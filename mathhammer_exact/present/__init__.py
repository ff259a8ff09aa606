"""Presentation: reports in every format, profile cards, plots and the probability tables."""
