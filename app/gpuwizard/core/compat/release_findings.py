"""Findings and notes on releases the package index has beyond the compatibility data.

Apart from plan_findings: these read what the index said (:mod:`gpuwizard.core.compat.index_view`),
not the machine.
"""

from __future__ import annotations

from gpuwizard.core.compat.index_view import IndexNews, IndexReleases
from gpuwizard.core.compat.plan import Plan, Wish
from gpuwizard.core.compat.reasons import reason_text
from gpuwizard.core.findings.model import Finding, make_finding
from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.texts import QT_TRANSLATE_NOOP


def release_findings(
    wish: Wish, unverified_wish: str | None, news: IndexNews, plan: Plan, index: IndexReleases | None
) -> list[Finding]:
    """RELEASE_NOT_VERIFIED for a wished or published release whose build matrix is not known."""
    title = framework_title(wish.framework)
    if unverified_wish is not None and wish.version:
        return [
            make_finding(
                "RELEASE_NOT_VERIFIED",
                variant="unchecked" if unverified_wish == "unchecked" else "wished",
                framework=title,
                version=wish.version,
                index=index.source if index else "PyPI",
                plan=plan.summary,
            )
        ]
    newer = [version for framework, version in news.unverified if framework == wish.framework]
    if not newer:
        return []
    return [
        make_finding(
            "RELEASE_NOT_VERIFIED",
            framework=title,
            version=newer[0],
            index=index.source if index else "PyPI",
            plan=plan.summary,
        )
    ]


def patch_notes(news: IndexNews, framework: str) -> list[str]:
    """A note for each minor whose newer patch (from the index) is planned."""
    return [
        reason_text(
            QT_TRANSLATE_NOOP(
                "reasons",
                "The index has {framework} {patch}, newer than the {known} the data knows: a patch release keeps its minor's builds, so it is used.",
            ),
            framework=framework_title(framework),
            patch=patch,
            known=known,
        )
        for row_framework, _minor, known, patch in news.patches
        if row_framework == framework
    ]
