"""`nemesis compare A B`: two configurations played on the same seeds, and what differs.

A and B are module lists (`base` and `base,path/to/mod`); `--bots-a/-b` and `--option-a/-b` set a
side's bots and options. Each figure is given for A and B with B - A, its 95% interval and a
two-sided p-value (stats.py: Fisher's exact test and Newcombe's interval for rates,
Welch's normal approximation for means; our own code, scipy is not needed). The two sides play
the same seeds but, their rules differing, not the same games: they are compared as independent
samples. For a mod, the cards of the modules B has and A lacks are each compared within B: the
seats that played the card against the others, on survival, wins and each cause of death.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import attrs

from nemesis_rules.api import Game, Ruleset
from nemesis_rules.cli import common, html_report, simulate, stats, tables
from nemesis_rules.cli.html_report import Page, Section


@attrs.frozen
class Side:
    name: str
    rules: Ruleset
    spec: simulate.Spec
    tables: dict[str, list[dict[str, Any]]]


@attrs.frozen
class Row:
    """One compared figure: its name, how many it counts on each side, and the difference."""

    what: str
    n_a: int
    n_b: int
    diff: stats.Difference
    percent: bool = True


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="play two configurations on the same seeds and test their differences")
    p.add_argument("a", metavar="A", help="the modules of configuration A, comma separated (e.g. base)")
    p.add_argument("b", metavar="B", help="the modules of configuration B (e.g. base,path/to/my_mod)")
    p.add_argument("--players", type=int, default=None, help="players per game (default: 2, or the rules' range)")
    p.add_argument("--games", type=int, default=100, help="games on each side (default: 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game; game i uses seed+i on both sides")
    p.add_argument("--bots", type=simulate._bot_list, default="random", help="bots of both sides (default: random)")
    p.add_argument("--bots-a", type=simulate._bot_list, default=None, help="A's bots (default: --bots)")
    p.add_argument("--bots-b", type=simulate._bot_list, default=None, help="B's bots (default: --bots)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="an option of both sides")
    p.add_argument("--option-a", action="append", default=[], metavar="NAME=VALUE", help="an option of A only")
    p.add_argument("--option-b", action="append", default=[], metavar="NAME=VALUE", help="an option of B only")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: CPU count)")
    p.add_argument("--max-decisions", type=int, default=simulate.DEFAULT_MAX_DECISIONS,
                   help="count a game with no result after this many decisions as an error")
    p.add_argument("--report", default=None, metavar="HTML", help="also write the comparison as an HTML page")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no timing line on stderr")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    jobs = simulate.checked_jobs(args)
    if args.report:
        html_report.check_libraries()
    started = time.perf_counter()
    sides = [_side(name, modules, bots or args.bots, [*args.option, *extra], args, jobs)
             for name, modules, bots, extra in (("A", args.a, args.bots_a, args.option_a),
                                                ("B", args.b, args.bots_b, args.option_b))]
    a, b = sides
    rows = compare(a, b)
    cards = mod_cards(a, b)
    print(text(a, b, args.seed, rows, cards))
    if args.report:
        html_report.write(args.report, page(a, b, args.seed, rows, cards))
    if not args.quiet:
        print(f"time: {time.perf_counter() - started:.2f} s", file=sys.stderr)
    return common.EXIT_OK


def _side(name: str, modules: str, bots: str, options: list[str], args: argparse.Namespace, jobs: int) -> Side:
    """Play one configuration's games (with their card events) and tabulate them."""
    rules = common.load([modules])
    spec = simulate.Spec(simulate._portable(common.module_list([modules])), "en",
                         common.check_players(rules, args.players), bots, common.parse_options(rules, options),
                         args.max_decisions, events=True)
    Game.new(rules, spec.players, args.seed, **spec.options)  # bad options fail here, before any game
    with common.rules_kept_aside():
        records = simulate.simulate(rules, spec, args.seed, args.games, jobs,
                                    show_progress=not args.quiet)
    return Side(name, rules, spec, simulate.run_tables(rules, spec, records))


# ---- what differs ----
def compare(a: Side, b: Side) -> list[Row]:
    """Seats' survival and wins, each ending's share of games, each cause's share of seats, and
    the mean rounds and decisions of a game."""
    sa, sb = a.tables["seats"], b.tables["seats"]
    ga, gb = a.tables["games"], b.tables["games"]
    rows = [_rate("seats surviving", sa, sb, lambda s: bool(s["survived"])),
            _rate("seats winning", sa, sb, lambda s: s["won"])]
    for end in sorted({g["end"] for g in ga + gb}):
        rows.append(_rate(f"games ending: {_label(b, end)}", ga, gb, lambda g, e=end: g["end"] == e))
    for cause in sorted({s["cause"] for s in sa + sb if s["cause"]}):
        rows.append(_rate(f"seats dying of: {_label(b, cause)}", sa, sb, lambda s, c=cause: s["cause"] == c))
    for column in ("rounds", "decisions"):
        va = [g[column] for g in ga if isinstance(g[column], int)]
        vb = [g[column] for g in gb if isinstance(g[column], int)]
        if va or vb:
            rows.append(Row(f"mean {column} a game", len(va), len(vb), stats.means(va, vb), percent=False))
    return rows


def _rate(what: str, rows_a: list[dict], rows_b: list[dict], hit: Any) -> Row:
    ha, hb = sum(1 for r in rows_a if hit(r)), sum(1 for r in rows_b if hit(r))
    return Row(what, len(rows_a), len(rows_b), stats.proportions(ha, len(rows_a), hb, len(rows_b)))


def _label(side: Side, key: str) -> str:
    label = side.rules.label(key)
    return key if label in (key, key.replace("_", " ")) else f"{label} ({key})"


@attrs.frozen
class CardEffect:
    """A card of B's own modules: how many of B's seats played it, and its most telling figure."""

    card: str
    name: str
    seats: int
    rows: tuple[Row, ...]  # played against not played: survival, wins, each cause

    @property
    def strongest(self) -> Row:
        return min(self.rows, key=lambda r: (r.diff.p, -abs(r.diff.delta)))


def own_cards(a: Side, b: Side) -> list[str]:
    """The components defined in the modules B has and A lacks."""
    extra = set(b.rules.modules) - set(a.rules.modules)
    return sorted(cid for cid, c in b.rules.composition.components.items() if c.module in extra)


def mod_cards(a: Side, b: Side) -> list[CardEffect]:
    seats, events = b.tables["seats"], b.tables["card_events"]
    played = tables.played_by(events)
    causes = sorted({s["cause"] for s in seats if s["cause"]})
    out = []
    for card in own_cards(a, b):
        who = played.get(card, set())
        mine = [s for s in seats if (s["seed"], s["seat"]) in who]
        others = [s for s in seats if (s["seed"], s["seat"]) not in who]
        rows = [_rate("surviving", others, mine, lambda s: bool(s["survived"])),
                _rate("winning", others, mine, lambda s: s["won"])]
        rows += [_rate(f"dying of {_label(b, c)}", others, mine, lambda s, c=c: s["cause"] == c) for c in causes]
        out.append(CardEffect(card, b.rules.label(card), len(mine), tuple(rows)))
    return out


# ---- showing it ----
def _value(row: Row, x: float) -> str:
    return f"{100 * x:.1f}%" if row.percent else f"{x:.2f}"


def _delta(row: Row) -> str:
    d, k = row.diff, 100 if row.percent else 1
    unit = " pp" if row.percent else ""
    return f"{k * d.delta:+.1f}{unit} [{k * d.low:+.1f}, {k * d.high:+.1f}] p={d.p:.3g}{' *' if d.significant else ''}"


def describe(side: Side) -> str:
    spec = side.spec
    options = f", options {simulate._options_text(spec.options)}" if spec.options else ""
    return f"{side.name}: {'+'.join(side.rules.modules)}, {spec.bots} bots{options}"


def text(a: Side, b: Side, seed: int, rows: list[Row], cards: list[CardEffect]) -> str:
    n = len(a.tables["games"])
    lines = [f"{n} games a side, {a.spec.players} players, seeds {seed}..{seed + n - 1}", describe(a), describe(b),
             "differences (B - A, 95% interval, two-sided p; * p < 0.05):"]
    width = max(len(r.what) for r in rows)
    lines += [f"  {r.what:<{width}}  A {_value(r, r.diff.a):>7}  B {_value(r, r.diff.b):>7}  {_delta(r)}" for r in rows]
    if cards:
        lines.append("cards of B's own modules (seats that played the card against the others, in B):")
        for c in cards:
            if not c.seats:
                lines.append(f"  {c.name} ({c.card}): never played")
                continue
            s = c.strongest
            lines.append(f"  {c.name} ({c.card}): played by {c.seats} seats; {s.what} "
                         f"{_value(s, s.diff.b)} against {_value(s, s.diff.a)}: {_delta(s)}")
    lines.append("tests: Fisher's exact test (rates), Welch's normal approximation (means); "
                 "the sides are independent samples")
    return "\n".join(lines)


def page(a: Side, b: Side, seed: int, rows: list[Row], cards: list[CardEffect]) -> Page:
    n = len(a.tables["games"])
    summary = [f"{n} games a side, {a.spec.players} players, seeds {seed}..{seed + n - 1}", describe(a), describe(b)]
    table = [[r.what, _value(r, r.diff.a), _value(r, r.diff.b), _delta(r)] for r in rows]
    sections = [Section("differences", "Differences, B - A", html_report.difference_plot(rows),
                        ["figure", "A", "B", "B - A [95% interval] p"], table,
                        "Rates: Newcombe interval, Fisher's exact test; means: Welch's normal approximation.")]
    if cards:
        card_rows = []
        for c in cards:
            card_rows += [[f"{c.name} ({c.card})", c.seats, r.what, _value(r, r.diff.b), _value(r, r.diff.a), _delta(r)]
                          for r in c.rows if c.seats]
            if not c.seats:
                card_rows.append([f"{c.name} ({c.card})", 0, "never played", "", "", ""])
        sections.append(Section("mod-cards", "The cards of B's own modules", None,
                                ["card", "seats that played it", "figure", "played", "not played", "difference"],
                                card_rows, "Within B: the seats that played the card against the other seats."))
    for side in (a, b):  # each side's own outcomes and causes of death
        for s in (html_report.outcomes(side.rules, side.tables["games"]),
                  html_report.causes(side.rules, side.tables["seats"])):
            if s is not None:
                s.id, s.title = f"{side.name}-{s.id}", f"{side.name}: {s.title}"
                sections.append(s)
    return Page(f"Comparison: {'+'.join(a.rules.modules)} against {'+'.join(b.rules.modules)}", summary,
                None, sections)

