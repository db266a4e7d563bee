"""`nemesis simulate --out DIR` (the tables games, seats, card_events; CSV or Parquet) and
`--report FILE` (one HTML page with plots): issue #37 points 1, 2 and 5."""

from __future__ import annotations

import csv
import io
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from nemesis_rules.api import load_ruleset
from nemesis_rules.cli import tables
from nemesis_rules.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "tests" / "fixtures" / "toy"
BASE = ("--modules", "base")
GAMES = 8


def run_quietly(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr, sys.stdin
    sys.stdout, sys.stderr, sys.stdin = out, err, io.StringIO("")
    try:
        code = main(list(argv))
    finally:
        sys.stdout, sys.stderr, sys.stdin = old
    return code, out.getvalue(), err.getvalue()


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or ()), list(reader)


@pytest.fixture(scope="module")
def base_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """8 base games (2 players) written as tables and as a report, once for the tests below."""
    folder = tmp_path_factory.mktemp("sim")
    code, out, err = run_quietly("simulate", *BASE, "--games", str(GAMES), "--jobs", "1", "-q",
                                 "--out", str(folder / "tables"), "--report", str(folder / "report.html"))
    assert code == 0, err
    return {"folder": folder, "out": out}


# ---- the tables ----
def test_tables_have_the_documented_columns(base_run):
    folder = base_run["folder"] / "tables"
    for name, columns in tables.COLUMNS.items():
        head, _ = read_csv(folder / f"{name}.csv")
        assert head == [c for c, _, _ in columns]


def test_games_and_seats_agree_with_the_text_report(base_run):
    folder = base_run["folder"] / "tables"
    _, games = read_csv(folder / "games.csv")
    _, seats = read_csv(folder / "seats.csv")
    assert [int(g["seed"]) for g in games] == list(range(GAMES))
    assert len(seats) == 2 * GAMES and {s["seat"] for s in seats} == {"0", "1"}
    survived = sum(s["survived"] == "True" for s in seats)
    assert re.search(rf"^crew survival: {survived} of {2 * GAMES}", base_run["out"], re.M)
    for s in seats:
        assert s["group"] in {"captain", "scout", "mechanic", "scientist", "pilot", "soldier"}
        assert s["objectives"] and all(o.startswith("objective_") for o in s["objectives"].split())
        assert (s["cause"] == "") == (s["survived"] == "True")
    for g in games:
        assert g["modules"] == "nemesis_core+base_characters+base" and g["options"] == "{}"
        assert int(g["rounds"]) >= 1 and g["end"] and g["error"] == ""


def test_card_events_name_cards_by_component_and_seat(base_run):
    _, events = read_csv(base_run["folder"] / "tables" / "card_events.csv")
    _, seats = read_csv(base_run["folder"] / "tables" / "seats.csv")
    rules = load_ruleset("base")
    assert {e["event"] for e in events} >= {"drawn", "played", "discarded", "gained"}
    for e in events:
        assert "#" not in e["card"] and e["card"] in rules.program.templates, e
        assert e["card_name"] == rules.label(e["card"])
    group = {(s["seed"], s["seat"]): s["group"] for s in seats}
    for e in (e for e in events if e["event"] == "drawn"):
        # an action card drawn is one of the seat's own character's cards (or a contamination card)
        kind, props, _ = rules.program.templates[e["card"]]
        assert props.get("belongs_to") == group[(e["seed"], e["seat"])] or kind == "contamination_card", e


def toy_with_cards(tmp_path: Path) -> Path:
    folder = tmp_path / "toy"
    shutil.copytree(TOY, folder)
    (folder / "module.yaml").write_text((TOY / "module.yaml").read_text()
                                        + "report:\n  rounds: round\n  cards: {drawn: [hand], discarded: [discard]}\n")
    return folder


def test_card_events_come_from_the_module_data_alone(tmp_path):
    """A game that is not Nemesis: the toy's cards entering a hand are `drawn` by its owner."""
    folder = toy_with_cards(tmp_path)
    code, _, err = run_quietly("simulate", "--modules", str(folder), "--games", "3", "--players", "2",
                               "--jobs", "1", "-q", "--out", str(tmp_path / "t"))
    assert code == 0, err
    _, events = read_csv(tmp_path / "t" / "card_events.csv")
    drawn = [e for e in events if e["event"] == "drawn"]
    assert drawn and {e["seat"] for e in drawn} == {"0", "1"}
    assert all("#" not in e["card"] for e in events)
    code, _, err = run_quietly("simulate", "--modules", str(TOY), "--games", "2", "--jobs", "1", "-q",
                               "--out", str(tmp_path / "plain"))
    assert code == 0, err
    assert read_csv(tmp_path / "plain" / "card_events.csv")[1] == []  # no `report: cards:`, no events


def test_parquet_holds_the_same_rows(tmp_path, base_run):
    pq = pytest.importorskip("pyarrow.parquet")
    code, _, err = run_quietly("simulate", *BASE, "--games", str(GAMES), "--jobs", "1", "-q",
                               "--out", str(tmp_path), "--format", "parquet")
    assert code == 0, err
    for name in tables.COLUMNS:
        table = pq.read_table(tmp_path / f"{name}.parquet").to_pylist()
        _, rows = read_csv(base_run["folder"] / "tables" / f"{name}.csv")
        as_text = [{k: "" if v is None else str(v) for k, v in row.items()} for row in table]
        assert as_text == rows


def test_docs_list_every_column():
    text = (ROOT / "docs" / "simulate.md").read_text()
    for name, columns in tables.COLUMNS.items():
        part = text.split(f"### {name}", 1)[1].split("###", 1)[0]
        listed = re.findall(r"^\| `(\w+)` \| (\w+) \|", part, re.M)
        assert listed == [(c, t) for c, t, _ in columns], name


def test_jsonl_path_keeps_one_line_per_game(tmp_path):
    code, _, err = run_quietly("simulate", "--modules", str(TOY), "--games", "2", "--jobs", "1", "-q",
                               "--out", str(tmp_path / "g.jsonl"))
    assert code == 0, err
    assert len((tmp_path / "g.jsonl").read_text().splitlines()) == 2


# ---- the HTML report ----
class Sections(HTMLParser):
    """The page's sections: id -> (title, how many <svg>, table rows)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, dict[str, object]] = {}
        self.current: str | None = None
        self.in_h2 = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.current = attrs["id"]
            self.found[self.current] = {"title": "", "svg": 0, "rows": 0}
        elif self.current and tag == "svg":
            self.found[self.current]["svg"] += 1
        elif self.current and tag == "tr":
            self.found[self.current]["rows"] += 1
        self.in_h2 = tag == "h2"

    def handle_data(self, data):
        if self.in_h2 and self.current:
            self.found[self.current]["title"] += data

    def handle_endtag(self, tag):
        if tag == "section":
            self.current = None
        if tag == "h2":
            self.in_h2 = False


def sections(path: Path) -> dict[str, dict[str, object]]:
    parser = Sections()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.found


def test_report_has_every_section_with_its_plot_and_table(base_run):
    found = sections(base_run["folder"] / "report.html")
    assert list(found)[0] == "content"  # placeholders and decisions come first
    assert found["content"]["rows"] > 1 and found["content"]["svg"] == 0
    for sid in ("outcomes", "groups", "objectives", "length", "causes", "cards"):
        assert found[sid]["svg"] == 1 and found[sid]["rows"] > 1, (sid, found[sid])
    assert found["groups"]["rows"] - 1 <= 6 and "counters" not in found
    text = (base_run["folder"] / "report.html").read_text()
    assert "<script" not in text and "<link" not in text and not re.search(r'(src|href)="https?:', text)


def test_report_counters_only_when_asked(tmp_path):
    code, _, err = run_quietly("simulate", "--modules", str(TOY), "--games", "2", "--jobs", "1", "-q",
                               "--report", str(tmp_path / "r.html"), "--counters")
    assert code == 0, err
    found = sections(tmp_path / "r.html")
    assert "counters" in found and "groups" not in found  # the toy reports no groups


def test_report_without_its_libraries_says_which_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails
    code, _, err = run_quietly("simulate", "--modules", str(TOY), "--games", "2", "--jobs", "1", "-q",
                               "--report", str(tmp_path / "r.html"))
    assert code == 2 and "pip install 'nemesis-rules[report]'" in err and "Traceback" not in err
    assert not (tmp_path / "r.html").exists()


def test_parquet_without_pyarrow_says_which_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    code, _, err = run_quietly("simulate", "--modules", str(TOY), "--games", "2", "--jobs", "1", "-q",
                               "--out", str(tmp_path / "t"), "--format", "parquet")
    assert code == 2 and "pip install 'nemesis-rules[report]'" in err


def test_several_player_counts_make_one_set_of_tables(tmp_path):
    """`--players 2-3`: the games of each count, one text report each, the tables and page hold all."""
    code, out, err = run_quietly("simulate", "--modules", str(TOY), "--players", "2-3", "--games", "3", "--jobs",
                                 "1", "-q", "--out", str(tmp_path / "t"), "--report", str(tmp_path / "r.html"))
    assert code == 0, err
    assert re.findall(r"^3 games of toy, (\d) players", out, re.M) == ["2", "3"]
    _, games = read_csv(tmp_path / "t" / "games.csv")
    assert [(g["players"], g["seed"]) for g in games] == [(p, str(s)) for p in "23" for s in range(3)]
    _, seats = read_csv(tmp_path / "t" / "seats.csv")
    assert len(seats) == 3 * 2 + 3 * 3
    assert sections(tmp_path / "r.html")["outcomes"]["rows"] == 1 + 2  # a row for each player count


@pytest.mark.parametrize(("players", "text"), [("x", "expected a number of players"), ("2,9", "must be from 1 to 4")])
def test_bad_player_counts(players, text):
    code, out, err = run_quietly("simulate", "--modules", str(TOY), "--players", players, "--games", "1")
    assert code == 2 and text in err and out == ""


@pytest.mark.slow
def test_issue_37_done_when_500_base_games(tmp_path):
    """The issue's check: 500 base games write the tables and a report with every plot."""
    code, _, err = run_quietly("simulate", "--games", "500", "-q", "--out", str(tmp_path / "t"),
                               "--report", str(tmp_path / "r.html"))
    assert code == 0, err
    assert len(read_csv(tmp_path / "t" / "games.csv")[1]) == 500
    found = sections(tmp_path / "r.html")
    assert all(found[s]["svg"] == 1 for s in ("outcomes", "groups", "objectives", "length", "causes", "cards"))


@pytest.mark.parametrize("modules", [("retaliation",), ("retaliation", "neosoma")])
def test_retaliation_tables_name_its_cards_and_objectives(tmp_path, modules):
    """Retaliation's `report:` (RT247) gives card events of all four kinds and each seat's objectives."""
    code, _, err = run_quietly("simulate", "--modules", *modules, "--games", "4", "--players", "3",
                               "--jobs", "1", "-q", "--out", str(tmp_path))
    assert code == 0, err
    _, events = read_csv(tmp_path / "card_events.csv")
    _, seats = read_csv(tmp_path / "seats.csv")
    rules = load_ruleset(*modules)
    assert {e["event"] for e in events} >= {"drawn", "played", "discarded", "gained"}
    assert all(e["card"] in rules.program.templates for e in events)
    objective_cards = {c for s in seats for c in s["objectives"].split()}
    assert objective_cards and all(rules.program.templates[c][0] == "objective_card" for c in objective_cards)
