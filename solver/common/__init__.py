"""What every part of the solver shares: errors, the progress protocol, exact and reach types,
atomic files and bounded reads, and work run side by side."""
