"""The interface languages the wizard ships (``resources/translations/gpuwizard_LANG.qm``).

Read without Qt, so the command line can refuse an unknown ``--lang`` before a window opens.
"""

from __future__ import annotations

from importlib import resources
from typing import Final

#: The language the source texts are written in: it needs no translation file.
SOURCE_LANGUAGE: Final = "en"


class LanguageError(ValueError):
    """No translation ships for the language asked for (one line, exit code 2)."""


def available_languages() -> list[str]:
    """``en`` and every language with a compiled translation, sorted after it."""
    folder = resources.files("gpuwizard.resources").joinpath("translations")
    found = {
        entry.name.removeprefix("gpuwizard_").removesuffix(".qm")
        for entry in folder.iterdir()
        if entry.name.startswith("gpuwizard_") and entry.name.endswith(".qm")
    }
    # English's own file holds only its plural forms (docs/architecture.md, translations).
    return [SOURCE_LANGUAGE, *sorted(found - {SOURCE_LANGUAGE})]


def check_language(lang: str) -> str:
    """Return ``lang`` when the wizard can show it (``es``, ``zh_CN``, ``zh-CN``, ``en_US``...).

    Raises:
        LanguageError: No translation for it ships.

    >>> check_language("en_GB")
    'en_GB'
    """
    normalised = lang.replace("-", "_")
    available = available_languages()
    if normalised.split("_")[0] == SOURCE_LANGUAGE or normalised in available:
        return normalised
    if normalised.split("_")[0] in available:  # es_MX -> es
        return normalised
    raise LanguageError(f"no translation for {lang!r} (available: {', '.join(available)})")
