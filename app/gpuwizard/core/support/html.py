"""The support report as one self-contained HTML file (pure: the templates are given as text).

Jinja2 lays out a :class:`~gpuwizard.core.support.blocks.SupportView` with autoescaping on, so
every value from the machine (paths, error messages, package names) is escaped; the style sheet
is inlined and nothing is fetched (no scripts, fonts, images or links to other files), so the
file reads the same offline, attached to an issue, or printed. The templates live in
``resources/report/`` (the workflow layer reads them: the core does no I/O).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import jinja2

from gpuwizard.core.support.blocks import SupportView

#: The page template and the style sheet it includes, by name.
HTML_TEMPLATE: Final = "support.html.jinja"
STYLE_SHEET: Final = "support.css"
TEMPLATE_NAMES: Final = (HTML_TEMPLATE, STYLE_SHEET)


def render_html(view: SupportView, templates: Mapping[str, str]) -> str:
    """The report as HTML, from ``templates`` (name -> text; see :data:`TEMPLATE_NAMES`)."""
    environment = jinja2.Environment(
        loader=jinja2.DictLoader(dict(templates)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return environment.get_template(HTML_TEMPLATE).render(view=view)
