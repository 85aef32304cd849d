"""Stand-in until the games-export branch moves solver/export/__init__.py here (issue 18,
decision 3): the application already imports `solver.export.bundle`. At the merge, their
file replaces this one."""

from solver.export import (  # noqa: F401
    FORMATS,
    docs_images,
    export_all,
    export_charts,
    measure,
    summary_markdown,
    unpack,
)
