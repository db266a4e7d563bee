"""What tests read of a composition's component data."""

from __future__ import annotations

from typing import Any


def specs_of(comp: Any, kind: str) -> dict[str, Any]:
    """The specs of the components of one kind, by id, in the order they are declared."""
    return {c.spec.id: c.spec for c in comp.components.values() if c.spec.kind == kind}
