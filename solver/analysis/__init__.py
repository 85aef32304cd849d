"""Measures of a solved strategy pair: the worth of every action (`action_values`), how
equilibrium play looks (`behaviour`), and the hand with its betting removed (`no_betting`)."""
