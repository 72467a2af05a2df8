"""Keep the wizard's translations current: ``python tools/translations.py update|release|check``.

- ``update``: extract every ``tr()`` / ``QT_TRANSLATE_NOOP`` text of ``app/``, and every text of
  the finding catalog (``resources/findings/*.json``, context ``findings``), into
  ``resources/translations/gpuwizard_LANG.ts`` (Qt Linguist sources) with ``pyside6-lupdate``,
  keeping what is translated and dropping texts that are gone; new texts arrive "unfinished",
  for a translator to fill in with Qt Linguist (``pyside6-linguist FILE.ts``) or any editor.
- ``release``: compile each ``.ts`` into the ``.qm`` the wizard loads, with ``pyside6-lrelease``.
- English, the language of the sources, has a ``.ts`` too, holding only the texts with a count
  (``tr("%n thing(s)", "", n)``): Qt picks a plural form only from a loaded translation, so
  without one English reads "1 thing(s)". ``update`` keeps it to those texts (``lupdate
  -pluralonly``), each with its singular and plural form to fill in; the Qt documentation
  recommends this ("Writing Source Code for Translation", "Handling Plurals").
- ``check``: exit 1 unless every ``.ts`` holds every text of the sources, each one translated.
- ``export LANG FILE.json`` / ``import LANG FILE.json``: the untranslated texts of ``LANG`` as a
  JSON list of ``{"context", "source", "plural", "translation"}`` for a translator without
  Qt Linguist, and back into the ``.ts`` (``translation`` is a string, or a list of plural forms).

Both tools ship with PySide6-Essentials; they are found beside the running interpreter.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
TRANSLATIONS: Final = ROOT / "resources" / "translations"
LANGUAGES: Final = ("es", "zh_CN", "en")
#: The sources' own language: its translation holds only the texts with plural forms.
PLURALS_ONLY: Final = frozenset({"en"})
#: The modules whose texts reach people: the GUI, and the core's marked templates.
SOURCES: Final = ("app/gpuwizard/ui", "app/gpuwizard/core")
#: The Qt context the GUI translates the finding catalog's texts in (ui/messages.py).
FINDINGS_CONTEXT: Final = "findings"


def tool(name: str) -> str:
    """``pyside6-NAME`` next to this interpreter (or on PATH)."""
    here = Path(sys.executable).parent
    for candidate in (here / f"pyside6-{name}", here / f"pyside6-{name}.exe"):
        if candidate.is_file():
            return str(candidate)
    found = shutil.which(f"pyside6-{name}")
    if found is None:
        raise SystemExit(f"pyside6-{name} not found: install PySide6-Essentials")
    return found


def source_files() -> list[str]:
    """Every Python file of the sources, relative to the repository, sorted."""
    files = [path for folder in SOURCES for path in (ROOT / folder).rglob("*.py")]
    return sorted(str(path.relative_to(ROOT)) for path in files)


def catalog_source(folder: Path) -> Path:
    """Write the finding catalog's texts into ``folder`` as a Python file that lupdate reads.

    The catalog is data (resources/findings/*.json) and lupdate reads only sources, so each
    message and hint becomes one ``QT_TRANSLATE_NOOP`` call, in the catalog's order.
    """
    from gpuwizard.core.findings.catalog import CATALOG  # noqa: PLC0415 - the app's own loader

    lines = ["from gpuwizard.core.texts import QT_TRANSLATE_NOOP", ""]
    for template in CATALOG.values():
        for text in (template.message, template.hint):
            literal = json.dumps(text, ensure_ascii=False)  # a valid Python string literal too
            lines.append(f'QT_TRANSLATE_NOOP("{FINDINGS_CONTEXT}", {literal})')
    path = folder / "findings_catalog.py"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def ts_path(lang: str, folder: Path = TRANSLATIONS) -> Path:
    """The Linguist source of ``lang``."""
    return folder / f"gpuwizard_{lang}.ts"


def update(folder: Path = TRANSLATIONS, languages: Sequence[str] = LANGUAGES) -> None:
    """Bring each ``.ts`` in ``folder`` (of ``languages``) up to date with the sources."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        catalog = catalog_source(Path(scratch))
        for lang in languages:
            target = ts_path(lang, folder)
            plurals = ["-pluralonly"] if lang in PLURALS_ONLY else []
            subprocess.run(
                [tool("lupdate"), *source_files(), str(catalog), "-no-obsolete", "-locations", "none",
                 *plurals, "-target-language", lang, "-ts", str(target)],
                cwd=ROOT, check=True, capture_output=True,
            )  # fmt: skip


def release(
    folder: Path = TRANSLATIONS, out: Path = TRANSLATIONS, languages: Sequence[str] = LANGUAGES
) -> list[Path]:
    """Compile each ``.ts`` of ``folder`` (of ``languages``) into ``out``; returns the ``.qm`` files."""
    written = []
    for lang in languages:
        target = out / f"gpuwizard_{lang}.qm"
        subprocess.run(
            [tool("lrelease"), str(ts_path(lang, folder)), "-qm", str(target)],
            check=True,
            capture_output=True,
        )
        written.append(target)
    return written


def problems(lang: str, folder: Path = TRANSLATIONS) -> list[str]:
    """What is missing from ``lang``'s translation: texts not in its ``.ts``, or not translated."""
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch)
        shutil.copy(ts_path(lang, folder), ts_path(lang, fresh))
        update(fresh, [lang])
        current = ts_path(lang, fresh).read_bytes()
    found = []
    if current != ts_path(lang, folder).read_bytes():
        found.append(f"{ts_path(lang, folder).name}: not current with the sources (run `update`)")
    for context, message in messages(ts_path(lang, folder)):
        translation = message.find("translation")
        source = message.findtext("source", "")
        if translation is None or translation.get("type") in ("unfinished", "vanished", "obsolete"):
            found.append(f"{lang} [{context}] untranslated: {source!r}")
    return found


def messages(path: Path) -> list[tuple[str, ET.Element]]:
    """``(context name, <message>)`` for every message of a ``.ts`` file."""
    root = ET.parse(path).getroot()  # noqa: S314 - our own file
    return [
        (context.findtext("name", ""), message)
        for context in root.iter("context")
        for message in context.iter("message")
    ]


def export_untranslated(lang: str, target: Path) -> int:
    """Write ``lang``'s untranslated messages to ``target``; returns how many."""
    items = []
    for context, message in messages(ts_path(lang)):
        translation = message.find("translation")
        if translation is not None and translation.get("type") not in ("unfinished", "vanished", "obsolete"):
            continue
        items.append(
            {
                "context": context,
                "source": message.findtext("source", ""),
                "comment": message.findtext("comment", ""),
                "plural": message.get("numerus") == "yes",
                "translation": "",
            }
        )
    target.write_text(json.dumps(items, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return len(items)


def import_translations(lang: str, source: Path) -> int:
    """Fill ``lang``'s ``.ts`` from a JSON file written by :func:`export_untranslated`; returns how many."""
    wanted = {
        (item["context"], item["source"], item.get("comment", "")): item["translation"]
        for item in json.loads(source.read_text(encoding="utf-8"))
        if item.get("translation")
    }
    path = ts_path(lang)
    tree = ET.parse(path)  # noqa: S314 - our own file
    filled = 0
    for context in tree.getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            text = wanted.get((name, message.findtext("source", ""), message.findtext("comment", "")))
            translation = message.find("translation")
            if text is None or translation is None:
                continue
            translation.attrib.pop("type", None)
            translation.text = None
            for child in list(translation):
                translation.remove(child)
            if message.get("numerus") == "yes":
                for form in [text] if isinstance(text, str) else text:
                    ET.SubElement(translation, "numerusform").text = form
            else:
                translation.text = text if isinstance(text, str) else text[0]
            filled += 1
    tree.write(path, encoding="utf-8", xml_declaration=True)
    update(languages=[lang])  # back into lupdate's own layout, so the check compares like with like
    return filled


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update", "release", "check", "export", "import"])
    parser.add_argument("lang", nargs="?", choices=LANGUAGES)
    parser.add_argument("file", nargs="?", type=Path)
    args = parser.parse_args(argv)
    if args.command in ("export", "import"):
        if args.lang is None or args.file is None:
            parser.error(f"{args.command} needs LANG and FILE")
        if args.command == "export":
            print(f"{export_untranslated(args.lang, args.file)} untranslated texts in {args.file}")
        else:
            print(f"{import_translations(args.lang, args.file)} texts filled in {ts_path(args.lang).name}")
        return 0
    if args.command == "update":
        update()
    elif args.command == "release":
        for path in release():
            print(path.relative_to(ROOT))
    else:
        found = [problem for lang in LANGUAGES for problem in problems(lang)]
        for problem in found:
            print(problem)
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
