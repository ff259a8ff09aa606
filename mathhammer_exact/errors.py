"""The one exception type a user sees: bad input, said plainly."""


class MathhammerError(ValueError):
    """Input the rules do not allow (an impossible BS, a malformed dice expression, ...).

    The message is one line saying what was wrong and what is allowed; the CLI
    prints it and exits with status 2.
    """
