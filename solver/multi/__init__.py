"""A first solver of multi-hand Bidou (docs/multi.md): CFR on the public tree with private hand
vectors (`tree`, `cfr`), each seat's gain from deviating by an exact best response against the
others' fixed strategies (`best_response`), their sum (NashConv), and the strategy file
(`strategy_file`). With three or more players this certifies an epsilon-equilibrium: it says
how much any one player could gain by deviating alone, not that the values are unique."""
