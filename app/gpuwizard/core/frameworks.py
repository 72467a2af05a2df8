"""The frameworks the wizard sets up: their names, import names and the distributions that bring them.

One table for every place that names a framework (plans, environment checks, the live test,
exports, the pages). The probes keep their own copy (they run in another interpreter and import
nothing of the wizard); tests/core/test_frameworks.py checks that the copies agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Framework:
    """One framework.

    Attributes:
        key: The wizard's name (``pytorch``), as in ``--framework`` and every JSON document.
        title: How people write it (``PyTorch``).
        module: What Python imports (``torch``).
        distributions: The PyPI distributions that install it, the main one first. TensorFlow
            has shipped as ``tensorflow-cpu``, ``tensorflow-intel`` (Windows, 2.11-2.15),
            ``tensorflow-macos`` and the removed ``tensorflow-gpu``
            (pypi.org/project/tensorflow-gpu: "This package has been removed").
    """

    key: str
    title: str
    module: str
    distributions: tuple[str, ...]

    def dist_info_prefixes(self) -> tuple[str, ...]:
        """The distributions as their ``*.dist-info`` folders begin (PEP 427 writes ``-`` as ``_``)."""
        return tuple(name.replace("-", "_") for name in self.distributions)


FRAMEWORKS: Final[dict[str, Framework]] = {
    "pytorch": Framework("pytorch", "PyTorch", "torch", ("torch",)),
    "tensorflow": Framework(
        "tensorflow",
        "TensorFlow",
        "tensorflow",
        ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-intel", "tensorflow-macos"),
    ),
}


def framework_title(key: str) -> str:
    """``PyTorch`` for ``pytorch``; an unknown name as it is.

    >>> framework_title("tensorflow"), framework_title("jax")
    ('TensorFlow', 'jax')
    """
    found = FRAMEWORKS.get(key)
    return found.title if found else key


def framework_module(key: str) -> str:
    """What Python imports for ``key`` (``torch``); an unknown name as it is."""
    found = FRAMEWORKS.get(key)
    return found.module if found else key
