"""Tables, charts and files of a solved hand and of a round.

The package imports nothing, so that reading one helper (`numbers`, `tables`) does not pull
in matplotlib: `bundle` writes a solved hand's whole set of files, `tables` and `charts` its
tables and printable charts, `cheatsheet_page` the cheat sheet, `round_charts` the round's
charts, `numbers` how measured numbers are rounded and worded.
"""
