"""Library pipelines, one per product, that every command and `bidou outputs` call:
`hand` (solve, certify, exact recovery, re-measure) and `round` (solve, certify, report)."""
