"""Answer files for unattended setup (``gpuwizard apply --answers FILE``), checked as a whole.

An answer file says what the wizard's pages would have asked: the framework and its release,
the environment manager and tool, the environment's name and folder, which GPUs it sees,
where the PATH entries go, and whether the live test must find a GPU. Fleets (Ansible, Intune,
SCCM) push one file to many machines, so a typo must stop the run before anything changes:
every key is known, every value has its type, and the first problem is named in one line.

TOML or JSON, one flat table:

>>> answers = parse_answers({"framework": "pytorch", "version": "2.13", "environment": "lab"})
>>> answers.request.framework, answers.request.version, answers.request.name, answers.path_scope
('pytorch', '2.13', 'lab', 'user')
>>> try:
...     parse_answers({"framework": "pytorch", "framwork": "x"})
... except AnswersError as error:
...     print(error)
unknown key 'framwork' (did you mean 'framework'?)
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard.core.envs.request import ENV_TOOLS, SetupRequest, SetupRequestError
from gpuwizard.core.envs.variables import GpuSelectionError, check_gpu_selection

#: The schema an answer file may name (``schema = "gpuwizard.answers/1"``); optional.
ANSWERS_SCHEMA: Final = "gpuwizard.answers/1"

#: Where the plan's PATH folders go: the user's PATH, the system's (asks for administrator
#: rights), or nowhere (the admin manages PATH by other means).
PATH_SCOPES: Final = ("user", "system", "none")
#: What happens to another CUDA version's PATH entries (as on the wizard's PATH page).
OTHER_CUDA_CHOICES: Final = ("keep", "end", "remove")

_TEXT_KEYS: Final = (
    "schema", "framework", "version", "python", "manager", "tool", "environment", "prefix",
    "path_scope", "other_cuda", "find_links", "channel",
)  # fmt: skip
_BOOL_KEYS: Final = ("offline", "jupyter", "replace", "test", "require_gpu")
KNOWN_KEYS: Final = (*_TEXT_KEYS, *_BOOL_KEYS, "gpus")


class AnswersError(ValueError):
    """The answer file cannot be used as it is (one line, exit code 2; nothing was changed)."""


@dataclass(frozen=True)
class Answers:
    """A checked answer file: the environment to set up, and what an unattended run adds.

    Attributes:
        request: The environment, as ``env create`` and the wizard ask for one (the file's
            ``framework``, ``version``, ``python``, ``manager``, ``tool``, ``environment``,
            ``prefix``, ``gpus``, ``find_links``, ``channel`` (a local conda channel, conda
            only), ``offline``, ``jupyter``, ``replace``).
        path_scope: ``user``, ``system`` or ``none``.
        other_cuda: Another CUDA version's PATH entries: ``keep``, move to the ``end``, ``remove``.
        test: Run the live training test at the end.
        require_gpu: Fail (exit 1, before changing anything) when the plan cannot use a GPU,
            and when the live test does not train on one.
    """

    request: SetupRequest
    path_scope: str = "user"
    other_cuda: str = "keep"
    test: bool = True
    require_gpu: bool = False


def parse_answers(data: object) -> Answers:
    """Check an answer file's table and return it as :class:`Answers`.

    Raises:
        AnswersError: The first problem found, in one line.
    """
    if not isinstance(data, Mapping):
        raise AnswersError('an answer file is one table of keys (framework = "pytorch", ...)')
    for key in data:
        if key not in KNOWN_KEYS:
            close = difflib.get_close_matches(str(key), KNOWN_KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f" (known keys: {', '.join(KNOWN_KEYS)})"
            raise AnswersError(f"unknown key {key!r}{hint}")
    text = {key: _text(data, key) for key in _TEXT_KEYS}
    flags = {key: _flag(data, key) for key in _BOOL_KEYS}
    if text["schema"] is not None and text["schema"] != ANSWERS_SCHEMA:
        raise AnswersError(f"schema {text['schema']!r} is not {ANSWERS_SCHEMA!r}")
    if text["framework"] is None:
        raise AnswersError("'framework' is missing (pytorch or tensorflow)")
    tool = _choice(text, "tool", ENV_TOOLS, None)
    if flags["offline"] and text["find_links"] is None:
        raise AnswersError("'offline = true' needs 'find_links', the folder of wheels to install from")
    try:
        request = SetupRequest.checked(
            framework=text["framework"],
            version=text["version"],
            python=text["python"],
            manager=text["manager"],
            name=text["environment"] if text["environment"] is not None else "gpu",
            tool=tool,
            prefix=Path(text["prefix"]) if text["prefix"] else None,
            find_links=Path(text["find_links"]) if text["find_links"] else None,
            channels=(text["channel"],) if text["channel"] else (),
            offline=bool(flags["offline"]),
            jupyter=bool(flags["jupyter"]),
            gpus=_gpus(data.get("gpus")),
            replace=bool(flags["replace"]),
        )
    except (SetupRequestError, GpuSelectionError) as error:
        raise AnswersError(str(error)) from None
    return Answers(
        request=request,
        path_scope=_choice(text, "path_scope", PATH_SCOPES, "user") or "user",
        other_cuda=_choice(text, "other_cuda", OTHER_CUDA_CHOICES, "keep") or "keep",
        test=flags["test"] is not False,
        require_gpu=bool(flags["require_gpu"]),
    )


def _text(data: Mapping[object, object], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key in ("version", "python"):
        # TOML and JSON read 2.10 as the number 2.1: the release would silently change.
        raise AnswersError(
            f'{key!r} must be text in quotes ({key} = "{value}"): as a number, 2.10 reads as 2.1'
        )
    if not isinstance(value, str) or not value.strip():
        raise AnswersError(f"{key!r} must be non-empty text, not {value!r}")
    return value.strip()


def _flag(data: Mapping[object, object], key: str) -> bool | None:
    value = data.get(key)
    if value is not None and not isinstance(value, bool):
        raise AnswersError(f"{key!r} must be true or false, not {value!r}")
    return value


def _choice(
    text: Mapping[str, str | None], key: str, choices: tuple[str, ...], default: str | None
) -> str | None:
    value = text[key]
    if value is None:
        return default
    if value not in choices:
        raise AnswersError(f"{key} {value!r} is not one of {', '.join(choices)}")
    return value


def _gpus(value: object) -> str | None:
    """``"all"``, ``"0,1"``, ``[0, 1]`` or GPU UUIDs, as CUDA_VISIBLE_DEVICES takes them (None: all)."""
    if value is None or value == "all":
        return None
    if (
        isinstance(value, list)
        and value
        and all(isinstance(item, (int, str)) and not isinstance(item, bool) for item in value)
    ):
        return check_gpu_selection(",".join(str(item) for item in value))
    if isinstance(value, str):
        return check_gpu_selection(value)
    raise AnswersError(f'\'gpus\' must be "all", a list such as [0, 1], or text such as "0,1", not {value!r}')
