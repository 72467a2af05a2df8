"""Setup requests for a given plan, as the workflow's preparation takes them, and a plan to make."""

from __future__ import annotations

import sys
from typing import Any

from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.request import SetupRequest


def planned(name: str, plan: Plan, **options: Any) -> tuple[SetupRequest, Plan]:
    """A request for an environment ``name`` of ``plan`` (``prepare_environment(*planned(...), tools)``)."""
    return SetupRequest(plan.framework, name=name, **options), plan


def cpu_torch_plan(index_url: str | None = "https://download.pytorch.org/whl/cpu") -> Plan:
    """PyTorch 2.13.0's CPU build for this Python (the tests' local wheel folders hold it)."""
    return Plan(
        framework="pytorch",
        framework_version="2.13.0",
        python=f"{sys.version_info.major}.{sys.version_info.minor}",
        cpu_only=True,
        cuda=None,
        cudnn=None,
        torch_variant="cpu",
        requirements=("torch==2.13.0",),
        index_url=index_url,
    )
