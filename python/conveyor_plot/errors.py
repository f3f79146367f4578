"""The ways a plot can fail, mapped to the CLI's exit codes by __main__."""


class UsageError(Exception):
    """Bad input: a missing or malformed file, an unknown result kind, a bad option (exit 2)."""


class Failure(Exception):
    """A runtime failure: the figure cannot be written (exit 1)."""


class MissingDependency(Failure, ImportError):
    """This Python cannot draw: matplotlib is not installed for it (exit 1). An ImportError too, so
    that `except ImportError` around an optional figure catches it."""
