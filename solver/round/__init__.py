"""The round of Bidou (RULES.md section 4): open throw, Monte Carlo simulator of whole rounds."""
