"""Sentences the core writes in English and the GUI shows translated.

A :class:`TranslatableText` is the English sentence itself (a ``str``: it prints, joins,
compares and goes into JSON as the text it reads), and it also carries the template it was
made from, marked for Qt's ``lupdate`` with ``QT_TRANSLATE_NOOP``, and the parameters that
fill it, so the GUI can translate the template and fill it again (as it does for findings).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name lupdate looks for
    """Mark ``text`` for translation in ``context`` without translating it here."""
    del context
    return text


class TranslatableText(str):
    """An English sentence that knows its template and parameters.

    >>> reason = TranslatableText("reasons", "Driver {driver} is new enough.", driver="610.43")
    >>> reason
    'Driver 610.43 is new enough.'
    >>> reason.template, dict(reason.params)
    ('Driver {driver} is new enough.', {'driver': '610.43'})
    """

    context: str
    template: str
    params: Mapping[str, str]

    def __new__(cls, context: str, template: str, **params: object) -> TranslatableText:
        """Fill ``template`` with ``params``; ``context`` is the template's translation context."""
        # A parameter that is a sentence itself keeps its template, so it is translated too.
        values = {
            name: value if isinstance(value, TranslatableText) else str(value)
            for name, value in params.items()
        }
        text = super().__new__(cls, template.format(**values))
        text.context = context
        text.template = template
        text.params = MappingProxyType(values)
        return text
