"""The application: the command line, the published outputs, play, convergence plots."""
