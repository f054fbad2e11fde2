"""The baselines' own code: the settings of the zero-shot baseline notebook (no names of its own)."""
