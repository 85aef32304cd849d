"""Analysis of solved strategies (simplified strategies and what they cost)."""
