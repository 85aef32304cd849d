"""What every part of the solver shares: errors, the progress protocol, exact and reach types,
atomic files and bounded reads, work run side by side, and ending on a signal the way a Unix
tool should (`signals`)."""
