"""Cheat sheets: strategies a person can state in words (`rulebook`), the best book of each
size and its proved cost (`search`, `compress`, `local_search`, `milp` over `program`, and the
lower bound of `bound`), the simplified strategy to remember (`simplify`), Le Bidou's stakes
rules (`stakes_rules`) and the round's chip rules with their exact chance (`round_rules`,
`round_exact`). Their pipelines are in solver/pipeline/, their pages in solver/export/."""
