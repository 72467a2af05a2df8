"""Setup requests for a given plan, as the workflow's preparation takes them."""

from __future__ import annotations

from typing import Any

from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.request import SetupRequest


def planned(name: str, plan: Plan, **options: Any) -> tuple[SetupRequest, Plan]:
    """A request for an environment ``name`` of ``plan`` (``prepare_environment(*planned(...), tools)``)."""
    return SetupRequest(plan.framework, name=name, **options), plan
