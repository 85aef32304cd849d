"""Library pipelines, one per product, that every command, `bidou outputs`, `bidou sweep` and
`bidou results` call: the hand, the round, the manche, the exploit, the cheat sheets and their
fronts, the sweeps, the results document."""
