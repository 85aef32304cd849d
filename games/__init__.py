"""Game definitions: the rules of Bidou and its OpenSpiel game."""
