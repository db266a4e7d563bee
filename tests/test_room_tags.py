"""Every room tile of base and Lockdown carries a tag naming its role (issue #38 point 6; DECISION
M3), and a rule can find a room by its tag (`slot_tagged`)."""

from __future__ import annotations

import pytest

from nemesis_rules.api import Game, load_ruleset
from nemesis_rules.engine import vm
from nemesis_rules.ruleset.compose import compose


@pytest.mark.parametrize("module", ["base", "lockdown"])
def test_every_room_tile_has_a_declared_tag(module: str) -> None:
    comp = compose([module])
    rooms = {cid: c for cid, c in comp.components.items() if c.spec.kind == "room" and c.module == module}
    assert len(rooms) > 20
    untagged = [cid for cid, c in rooms.items() if not c.spec.props.get("tags")]
    assert untagged == []
    undeclared = {t for c in rooms.values() for t in c.spec.props["tags"]} - set(comp.symbols)
    assert undeclared == set()


def test_a_room_is_found_by_its_tag() -> None:
    rules = load_ruleset("base")
    game = Game.new(rules, 2, 0)
    rt = vm.Runtime(rules.program, game.state)
    for tag, room in [("generator_tile", "generator"), ("hibernatorium_tile", "hibernatorium"),
                      ("cockpit_tile", "cockpit")]:
        assert vm.call_function(rt, "slot_tagged", [tag]) == vm.call_function(rt, "slot_of_room", [room])
    assert vm.call_function(rt, "slot_tagged", ["hibernatorium_tile"]) is not None
