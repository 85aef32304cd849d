"""Pages, tables, charts and files of what was solved and measured; they render, never solve.

The package imports nothing, so that reading one helper (`numbers`, `tables`) does not pull
in matplotlib: `bundle` writes a solved hand's whole set of files, `tables` and `charts` its
tables and printable charts, `cheatsheet_page` the cheat sheet, `round_charts` the round's
charts, `numbers` how measured numbers are rounded and worded; `results_page` and its
sections render docs/results.md, `manche_page` the manche's page, `site` the browser view.
"""
