"""`nemesis simulate --report` and `nemesis compare --report`: one self-contained HTML file.

Plots are inline SVG drawn by matplotlib; the page is a Jinja2 template (templates/report.html.j2).
Both libraries are the `report` extra and are imported only here, when a report is asked for.
Every figure is built from the tables `--out` writes (tables.py), and the rows behind each plot
are shown under it. The page starts with what the figures rest on that is not the printed game:
the content a module's coverage.toml says is unknown or settled by a decision, and each group's
caveat (`report: player: caveat`).
"""

from __future__ import annotations

import io
import json
import re
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import attrs

from nemesis_rules.api import Ruleset
from nemesis_rules.cli import stats, tables
from nemesis_rules.cli.common import CliError
from nemesis_rules.coverage import COVERAGE_FILE, CoverageError, load_decks

REPORT_MISSING = "--report needs matplotlib and jinja2: pip install 'nemesis-rules[report]'"
TOP_CARDS = 15
TEMPLATE = "report.html.j2"


def check_libraries() -> None:
    """Say at once which extra to install when a library of the report is missing."""
    try:
        import jinja2  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError:
        raise CliError(REPORT_MISSING) from None


@attrs.define
class Section:
    """One part of the page: a title, an optional plot (SVG text), the table behind it, a note."""

    id: str
    title: str
    svg: str | None = None
    head: list[str] = attrs.Factory(list)
    rows: list[list[Any]] = attrs.Factory(list)
    note: str = ""


@attrs.define
class Page:
    title: str
    summary: list[str]
    notes: Section | None
    sections: list[Section]


# ---- one simulation ----
def simulation(rules: Ruleset, spec: Any, seed: int, data: dict[str, list[dict[str, Any]]],
               records: list[dict[str, Any]], counters: bool = False) -> Page:
    """The page of one run: `data` its tables (tables.tables), `records` for `--counters`."""
    games, seats, events = data["games"], data["seats"], data["card_events"]
    title = f"{len(games)} games of {'+'.join(rules.modules)}"
    counts = sorted({g["players"] for g in games})
    last = max(g["seed"] for g in games)
    summary = [f"{', '.join(map(str, counts))} players, seeds {seed}..{last}, {spec.bots} bots"
               + (f", options {json.dumps(spec.options)}" if spec.options else "")]
    sections = [outcomes(rules, games), by_group(rules, seats), by_objective(rules, seats),
                length(games), causes(rules, seats), card_effects(rules, seats, events)]
    if counters:
        sections.append(counter_means(records))
    return Page(title, summary, content_notes(rules, events, seats), [s for s in sections if s is not None])


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rate(hits: int, n: int) -> str:
    low, high = stats.wilson(hits, n)
    return f"{_pct(hits / n if n else 0)} [{_pct(low)}, {_pct(high)}]"


def outcomes(rules: Ruleset, games: list[dict[str, Any]]) -> Section:
    counts = Counter((g["players"], g["end"]) for g in games)
    totals = Counter(g["players"] for g in games)
    ends = sorted({e for _, e in counts}, key=lambda e: -sum(c for (_, x), c in counts.items() if x == e))
    rows = [[p, _name(rules, e), c, _rate(c, totals[p])] for (p, e), c in sorted(counts.items(),
                                                                                 key=lambda pc: (pc[0][0], -pc[1]))]
    fig, ax = _figure(len(totals))
    left = {p: 0.0 for p in totals}
    for e in ends:
        widths = [counts[(p, e)] / totals[p] for p in sorted(totals)]
        ax.barh([f"{p} players" for p in sorted(totals)], widths, left=[left[p] for p in sorted(totals)],
                label=_name(rules, e))
        for p, w in zip(sorted(totals), widths, strict=True):
            left[p] += w
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of games")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small", frameon=False)
    return Section("outcomes", "Outcomes by player count", _svg(fig), ["players", "end", "games", "share [95% CI]"],
                   rows)


def _rates_section(sid: str, title: str, what: str, keyed: dict[str, list[dict[str, Any]]],
                   label: Any) -> Section | None:
    """Survival and wins of the seats under each key, with Wilson intervals, plotted side by side."""
    if not keyed:
        return None
    keys = sorted(keyed, key=lambda k: label(k))
    rows, plot = [], []
    for k in keys:
        group = keyed[k]
        n = len(group)
        alive = sum(1 for s in group if s["survived"])
        won = sum(1 for s in group if s["won"])
        rows.append([label(k), n, _rate(alive, n), _rate(won, n)])
        plot.append((label(k), (alive, n), (won, n)))
    fig, ax = _figure(len(keys))
    for offset, (name, index) in ((-0.2, ("survived", 1)), (0.2, ("won", 2))):
        values = [item[index][0] / item[index][1] for item in plot]
        errs = [_err(*item[index]) for item in plot]
        ax.barh([i + offset for i in range(len(plot))], values, height=0.4, label=name,
                xerr=list(zip(*errs, strict=True)), capsize=2)
    ax.set_yticks(range(len(plot)), [item[0] for item in plot])
    highest = max(stats.wilson(*item[i])[1] for item in plot for i in (1, 2))
    ax.set_xlim(0, min(1.0, max(0.05, 1.1 * highest)))  # rare outcomes (bots) stay readable
    ax.set_xlabel("share of seats (95% Wilson interval)")
    ax.legend(fontsize="small")
    return Section(sid, title, _svg(fig), [what, "seats", "survived [95% CI]", "won [95% CI]"], rows)


def _err(hits: int, n: int) -> tuple[float, float]:
    low, high = stats.wilson(hits, n)
    p = hits / n if n else 0.0
    return max(0.0, p - low), max(0.0, high - p)


def by_group(rules: Ruleset, seats: list[dict[str, Any]]) -> Section | None:
    keyed: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in seats:
        if s["group"] is not None:
            keyed[s["group"]].append(s)
    caveats = {s["group"] for s in seats if s["caveat"]}
    fn = rules.composition.report["player.group"].value if "player.group" in rules.composition.report else ""
    what = rules.names[fn].lower() if fn in rules.names else "group"  # as the text report names it
    return _rates_section("groups", f"Survival and wins by {what}", what, keyed,
                          lambda g: rules.label(g) + (" *" if g in caveats else ""))


def by_objective(rules: Ruleset, seats: list[dict[str, Any]]) -> Section | None:
    keyed: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in seats:
        for o in (s["objectives"] or "").split():
            keyed[o].append(s)
    section = _rates_section("objectives", "Survival and wins by objective held at the end", "objective", keyed,
                             rules.label)
    if section is not None:
        section.note = "A seat counts under every objective it holds when the game ends."
    return section


def length(games: list[dict[str, Any]]) -> Section | None:
    rounds = [g["rounds"] for g in games if isinstance(g["rounds"], int)]
    if not rounds:
        return None
    fig, ax = _figure(4)
    ax.hist(rounds, bins=range(min(rounds), max(rounds) + 2), align="left", rwidth=0.85)
    ax.set_xlabel("rounds played")
    ax.set_ylabel("games")
    rows = [["mean", f"{statistics.fmean(rounds):.2f}"], ["median", f"{statistics.median(rounds):g}"],
            ["min", min(rounds)], ["max", max(rounds)], ["games", len(rounds)]]
    return Section("length", "Game length", _svg(fig), ["rounds", "value"], rows)


def causes(rules: Ruleset, seats: list[dict[str, Any]]) -> Section | None:
    dead = [s for s in seats if s["survived"] is False or (s["survived"] is None and s["cause"])]
    if not dead:
        return None
    counts = Counter(s["cause"] or "not recorded" for s in dead)
    ranked = sorted(counts.items(), key=lambda kc: (-kc[1], kc[0]))
    fig, ax = _figure(len(ranked))
    ax.barh([_name(rules, c) for c, _ in reversed(ranked)], [k / len(dead) for _, k in reversed(ranked)])
    ax.set_xlabel(f"share of the {len(dead)} dead")
    rows = [[_name(rules, c), k, _rate(k, len(dead))] for c, k in ranked]
    return Section("causes", "Causes of death", _svg(fig), ["cause", "dead", "share [95% CI]"], rows)


def card_effects(rules: Ruleset, seats: list[dict[str, Any]], events: list[dict[str, Any]],
                 limit: int = TOP_CARDS) -> Section | None:
    """For each card: the seats that played it against the others, their survival and win rates
    (Wilson intervals) and the difference (Newcombe interval, Fisher's test); the surest first."""
    effects = card_table(seats, events)
    if not effects:
        return None
    ranked = sorted(effects, key=lambda e: (-e[3][0], -e[3][1], e[0]))
    shown = ranked[:limit]
    rows = []
    for card, played, others, _ in shown:
        won = stats.proportions(others[1], others[0], played[1], played[0])
        alive = stats.proportions(others[2], others[0], played[2], played[0])
        rows.append([f"{rules.label(card)} ({card})", played[0], _rate(played[1], played[0]),
                     _rate(played[2], played[0]), _diff(won), _diff(alive)])
    fig, ax = _figure(len(shown))
    for offset, (name, col) in ((-0.2, ("won", 1)), (0.2, ("survived", 2))):
        diffs = [stats.proportions(o[col], o[0], p[col], p[0]) for _, p, o, _ in shown]
        ax.errorbar([d.delta for d in diffs], [i + offset for i in range(len(shown))], fmt="o", capsize=2,
                    xerr=[[max(0.0, d.delta - d.low) for d in diffs], [max(0.0, d.high - d.delta) for d in diffs]], label=name)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(range(len(shown)), [rules.label(c) for c, *_ in shown])
    ax.set_xlabel("played minus not played (95% interval)")
    ax.legend(fontsize="small")
    head = ["card", "seats that played it", "won [95% CI]", "survived [95% CI]", "Δ won (p)", "Δ survived (p)"]
    note = ("Seats that played the card at least once against the seats that did not, in the same games; "
            "Δ: their difference with Newcombe's 95% interval and Fisher's exact p (* p < 0.05). "
            "Ranked by the surest change: the end of Δ's interval nearest zero (0 when it spans zero). "
            f"{'The ' + str(len(shown)) + ' largest of ' + str(len(ranked)) + ' cards.' if len(ranked) > len(shown) else ''}")
    return Section("cards", "Cards whose play moves the outcome most", _svg(fig), head, rows, note)


def card_table(seats: list[dict[str, Any]],
               events: list[dict[str, Any]]) -> list[tuple[str, tuple[int, int, int], tuple[int, int, int], Any]]:
    """Per card: (seats, won, survived) of the seats that played it and of the others, and how
    surely and how much it changes either rate (its sort key)."""
    out = []
    for card, who in tables.played_by(events).items():
        played = _tally(s for s in seats if (s["seed"], s["seat"]) in who)
        others = _tally(s for s in seats if (s["seed"], s["seat"]) not in who)
        if played[0] == 0:
            continue
        diffs = [stats.proportions(others[i], others[0], played[i], played[0]) for i in (1, 2)]
        out.append((card, played, others, max((_surest(d), abs(d.delta)) for d in diffs)))
    return out


def _surest(d: stats.Difference) -> float:
    """How far the difference surely is from zero: its interval's end nearest zero (0: it spans zero)."""
    return max(d.low, -d.high, 0.0)


def _tally(seats: Any) -> tuple[int, int, int]:
    rows = list(seats)
    return len(rows), sum(1 for s in rows if s["won"]), sum(1 for s in rows if s["survived"])


def _diff(d: stats.Difference) -> str:
    mark = " *" if d.significant else ""
    return f"{100 * d.delta:+.1f} [{100 * d.low:+.1f}, {100 * d.high:+.1f}] (p={d.p:.3g}){mark}"


def difference_plot(rows: list[Any]) -> str:
    """compare's rows: each rate's difference B - A with its interval (means are in the table only)."""
    rates = [r for r in rows if r.percent]
    fig, ax = _figure(len(rates))
    for i, r in enumerate(rates):
        d = r.diff
        ax.errorbar([d.delta], [i], xerr=[[max(0.0, d.delta - d.low)], [max(0.0, d.high - d.delta)]], fmt="o",
                    capsize=2, color="tab:red" if d.significant else "tab:blue")
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(range(len(rates)), [r.what for r in rates])
    ax.invert_yaxis()
    ax.set_xlabel("B - A (95% interval; red: p < 0.05)")
    return _svg(fig)


def counter_means(records: list[dict[str, Any]]) -> Section:
    finished = [r["counters"] for r in records if r["result"]]
    names = sorted({k for c in finished for k in c})
    rows = [[k, f"{statistics.fmean(c.get(k, 0) for c in finished):.2f}"] for k in names]
    return Section("counters", "Counters at the end (mean, every counter: --counters)", None, ["counter", "mean"],
                   rows)


def content_notes(rules: Ruleset, events: list[dict[str, Any]], seats: list[dict[str, Any]]) -> Section | None:
    """What the figures rest on beyond the printed game: coverage.toml's unknown content (cards
    encoded with placeholders) and its decided content, and the groups' caveats."""
    games_with: dict[str, set[int]] = defaultdict(set)
    for e in events:
        games_with[e["card"]].add(e["seed"])
    rows = []
    for src in rules.composition.modules:
        path = Path(src.path) / COVERAGE_FILE
        try:
            decks = load_decks(path) if path.is_file() else []
        except CoverageError as error:
            rows.append([src.id, "", "coverage.toml unreadable", str(error), "", ""])
            continue
        for deck in decks:
            for what, entries in (("unknown", [u for u in deck.unknown if u.components]), ("decided", deck.decided)):
                for entry in entries:
                    cards = entry.components
                    seen = len(set().union(*(games_with[c] for c in cards))) if cards else ""
                    rows.append([src.id, deck.name, what, entry.name,
                                 ", ".join(rules.label(c) for c in cards) or "the whole deck", seen])
    caveats = sorted({(s["group"], s["caveat"]) for s in seats if s["caveat"]})
    rows += [["", "", "caveat", _name(rules, c), rules.label(g), ""] for g, c in caveats]
    if not rows:
        return None
    return Section("content", "Content that is a placeholder or a decision", None,
                   ["module", "deck", "kind", "what", "cards", "games it appeared in"], rows,
                   "From each module's coverage.toml (unknown: encoded with content the sources do not give; "
                   "decided: settled by a recorded decision) and the report's caveats (* in the tables).")


def _name(rules: Ruleset, key: str) -> str:
    label = rules.label(key)
    return key if label in (key, key.replace("_", " ")) else label


# ---- drawing and writing ----
def _figure(rows: int) -> tuple[Any, Any]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "nemesis", "font.size": 9})
    fig, ax = plt.subplots(figsize=(7.5, max(2.2, 0.32 * rows + 1.2)))
    return fig, ax


def _svg(fig: Any) -> str:
    import matplotlib.pyplot as plt
    buf = io.StringIO()
    fig.tight_layout()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    plt.close(fig)
    text = re.sub(r"<metadata>.*?</metadata>", "", buf.getvalue(), count=1, flags=re.S)  # the RDF block
    return re.sub(r"^.*?(<svg)", r"\1", text, count=1, flags=re.S)  # no XML prolog inside HTML


def render(page: Page) -> str:
    import jinja2
    env = jinja2.Environment(loader=jinja2.PackageLoader("nemesis_rules.cli", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    return env.get_template(TEMPLATE).render(page=page)


def write(path: str | Path, page: Page) -> None:
    Path(path).write_text(render(page), encoding="utf-8")
