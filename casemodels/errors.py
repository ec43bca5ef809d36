"""The one error type of the case-characteristics models."""


class CaseModelError(ValueError):
    """Bad input (metadata, specification, results): the message names the
    problem in one line, for the command line, the page and the API alike."""
