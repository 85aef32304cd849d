"""The `bidou` commands, one thin module each over a library pipeline (solver/pipeline/).

`solver/app/cli.py` assembles them into the `bidou` group; `group.py` holds the group's
error handling and exit codes, `options.py` the options several commands share.
"""
