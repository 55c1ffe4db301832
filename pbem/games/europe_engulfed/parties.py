"""Three players (Part II "Players", J-0 6): the Axis, the Western Allies and the Soviet Union as
three parties of one game, each signing its own files.

The rules keep their two sides (``ctx.side`` "axis"/"allies"); a party is who sends and signs a
file. With the option ``players = 3`` the parties are ``axis``, ``west`` and ``ussr``; an Allied
nation belongs to one of them by the option ``three_player_split`` (Part II, the default
``rulebook``: Britain and the USA are the Western player's; the USSR, France and the minor powers
invaded by the Axis the Soviet player's; ``ussr-alone``: the USSR the Soviet player's, every other
Allied nation the West's).

The sequence (module.py): every step of the Allied player-turn (and the fog of war's set-up)
awaits ``west`` and ``ussr`` at once (J-0 6: "each submits orders for their own nations, and the
server merges them"), adjudicated by the Axis (or the referee); an Axis step awaits the Axis and
is adjudicated by one Allied party, the option ``axis_adjudicator`` (default ``ussr``: 1.1 names
the Soviet player as the Allied player who rolls the weather die against the German player); the
other Allied party sees the result in the state. With fog of war an Allied party whose hidden
blocks must be opened in an Axis step (6.24) and who does not adjudicate it is awaited in that
step too, with a file that only opens them (no [standing]: the two Allied players could know the
step's dice before it is sealed): only a party's own key opens its items (docs/protocol.md, Hidden
values).

Each Allied file may order only its own nations' blocks, production, declarations and standing
instructions (``ownership_problems``); the module checks each file alone, then the two merged
(``merge``): lists one after the other, the Western file's first (A-51's zone priority is not
read yet: see docs/europe-engulfed.md, Three players), tables merged key by key; where both give one value (the
same battle area, both a breakthrough of their own), the Axis's standing ``allied_choice``
decides (A-75: the Axis chooses; default: the priority party's). Problems of the merged orders
name the file (``west: move[0].path``).

Standing instructions are kept per party (``standing.west``, ``standing.ussr``); the rules read
the Allied side's as one (``merged_standing``: lists joined, the West's first; ``sa_reserve`` the
larger).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from . import options as opts
from .data import ALLIES, AXIS, SIDES

WEST, USSR = "west", "ussr"
THREE: tuple[str, ...] = (AXIS, WEST, USSR)
ALLIED = (WEST, USSR)
WEST_NATIONS = ("britain", "usa")  # Part II: player 1 plays Britain and the USA
LIST_KEYS = ("declare", "move", "evacuate", "strat", "invade", "drop", "battle")  # in this order; then any other list
SKIP = ("standing", "hidden", "open", "pbem")


def three(options: dict[str, Any]) -> bool:
    """Whether a game (by its options, raw or as the state records them) has three players: every
    spelling the option accepts (3, "3", "03": options.parse) gives the parties the game records."""
    raw = options.get("players", 2)
    return not isinstance(raw, bool) and str(raw).isdigit() and int(raw) == 3


def parties(options: dict[str, Any]) -> tuple[str, ...]:
    """The game's parties (pbem.games.base ``sides_for``)."""
    return THREE if three(options) else SIDES


def party_of_nation(options: dict[str, Any], nation: str, side: str) -> str:
    """The party of a nation of ``side`` (its side: data, or politics for a minor)."""
    if side != ALLIES or not three(options):
        return side
    if opts.get(options, "three_player_split") == "ussr-alone":
        return USSR if nation == "ussr" else WEST
    return WEST if nation in WEST_NATIONS else USSR


def side_of_party(party: str) -> str:
    return ALLIES if party in ALLIED else party


def awaited(options: dict[str, Any], side: str) -> list[str]:
    """The parties that send the files of a step of ``side``'s player-turn."""
    return [USSR, WEST] if side == ALLIES and three(options) else [side]


def adjudicator(state: dict[str, Any], side: str) -> str:
    """The referee; else, three players: the Axis for an Allied step, the ``axis_adjudicator``
    party for an Axis step; two: the other side."""
    options = state.get("options", {})
    if "referee" in state.get("parties", {}):
        return "referee"
    if three(options):
        return AXIS if side == ALLIES else str(opts.get(options, "axis_adjudicator"))
    return ALLIES if side == AXIS else AXIS


def first(options: dict[str, Any]) -> tuple[str, str]:
    """The Allied parties in merge order: the West's file first."""
    return (WEST, USSR)


# --- standing instructions ---------------------------------------------------------------------

def merged_standing(options: dict[str, Any], standing: dict[str, Any]) -> dict[str, Any]:
    """The rules' standing instructions by side: the two Allied parties' as one (lists joined in
    merge order, tables merged, ``sa_reserve`` the larger)."""
    out = {k: copy.deepcopy(v) for k, v in standing.items() if k not in ALLIED}
    allied: dict[str, Any] = {}
    for p in first(options):
        for k, v in standing.get(p, {}).items():
            if isinstance(v, list):
                allied[k] = [*allied.get(k, []), *copy.deepcopy(v)]
            elif isinstance(v, dict):
                allied[k] = {**copy.deepcopy(v), **allied.get(k, {})}
            elif k == "sa_reserve":
                allied[k] = max(int(allied.get(k, 0)), int(v))
            else:
                allied.setdefault(k, copy.deepcopy(v))
    if allied:
        out[ALLIES] = allied
    return out


# --- a file's own nations ----------------------------------------------------------------------

UNIT_ID = re.compile(r"^[a-z]{2}(-e)?\.[0-9]{2,3}$")
NATION_KEYS = ("nation", "nations", "naval_losses")  # keys whose value is a nation or a list of nations (6.72, 8.14)
NATION_TABLES = ("sa", "gs", "gs_at", "fp", "asw", "flak", "fighters", "bombers", "uboats", "v1", "v2", "hidden_werps",
                 "support")  # tables keyed by nation: production.buy (4.6, 4.43; support: by unit, valued by nation)
SENDER_TABLES = ("lend_lease",)  # tables keyed SENDER_to_RECEIVER (9.35, 9.36): the sending nation's order
STANDING_OF = {"strategic": "britain",  # J-3 (a), 2.2, 2.22a: read for Britain's bombers and fighters (strategic.py)
               "lend_lease": "usa",  # 9.34: US lend-lease, sent by the USA (allied_powers.py)
               "french_fleet": "france"}  # 9.52: where France's escaping FP goes (politics.py)


def ownership_problems(ctx: Any, party: str, body: dict[str, Any]) -> list[Problem]:
    """Part II: an Allied party's file orders only its own nations: every block it names (moves,
    builds, replacements, battles' supports, standing instructions) is one of its nations', every
    nation it names (production, purchases, GS, declarations) one of its own. Blocks of the enemy
    side are the rules' to judge (a block named that is not the side's is their problem)."""
    problems: list[Problem] = []

    def other_party(nation: str) -> bool:
        side = ctx.side_of_nation(nation)
        return bool(side == ALLIES and ctx.party_of_nation(nation) != party)

    def walk(x: Any, where: str, key: str) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                w = f"{where}.{k}" if where else str(k)
                if key in NATION_TABLES and k in ctx.sc.units.nations and other_party(str(k)):
                    problems.append(Problem(w, f"{k} is the {ctx.party_of_nation(str(k))} player's nation; the {party} "
                                            "player orders only his own (Part II)", "Part II"))
                sender = str(k).split("_to_")[0]
                if key in SENDER_TABLES and sender in ctx.sc.units.nations and other_party(sender):
                    problems.append(Problem(w, f"{sender} sends this lend-lease and is the {ctx.party_of_nation(sender)} "
                                            f"player's nation; the {party} player orders only his own (Part II)", "Part II"))
                if UNIT_ID.match(str(k)) and str(k) in ctx.units and ctx.side_of(str(k)) == ALLIES \
                        and ctx.party_of(str(k)) != party:
                    problems.append(Problem(w, f"{k} is a block of the {ctx.party_of(str(k))} player ({ctx.nation(str(k))}); "
                                            f"the {party} player orders only his own (Part II)", "Part II"))
                walk(v, w, str(k))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{where}[{i}]", key)
        elif isinstance(x, str):
            if UNIT_ID.match(x) and x in ctx.units and ctx.side_of(x) == ALLIES and ctx.party_of(x) != party:
                problems.append(Problem(where, f"{x} is a block of the {ctx.party_of(x)} player ({ctx.nation(x)}); the "
                                        f"{party} player orders only his own (Part II)", "Part II"))
            elif (key in NATION_KEYS or key in NATION_TABLES) and x in ctx.sc.units.nations and other_party(x):
                problems.append(Problem(where, f"{x} is the {ctx.party_of_nation(x)} player's nation; the {party} player "
                                        "orders only his own (Part II)", "Part II"))

    for k, v in sorted(body.items()):
        if k in ("hidden", "open", "pbem"):
            continue
        walk(v, k, k)
    standing: dict[str, Any] = body["standing"] if isinstance(body.get("standing"), dict) else {}
    for key, nation in STANDING_OF.items():  # standing instructions the rules read for one nation
        if key in standing and other_party(nation):
            problems.append(Problem(f"standing.{key}", f"the Allied standing {key} is {nation}'s, the "
                                    f"{ctx.party_of_nation(nation)} player's nation; the {party} player orders only his "
                                    "own (Part II)", "Part II"))
    return problems


# --- merging the two Allied files ---------------------------------------------------------------

def merge(options: dict[str, Any], bodies: dict[str, dict[str, Any]], choice: str = "") -> tuple[dict[str, Any], dict[str, tuple[str, str]]]:
    """The two Allied files as one order body, and where each merged list entry came from
    (``{"move[3]": ("west", "move[1]")}``). Lists are joined in merge order (``first``); tables
    merged key by key; a battle area both list is fought by ``choice``'s entry (A-75: the Axis's
    standing ``allied_choice``; default the first party's); ``[breakthrough]``: the one that is not
    "end" (both: ``choice``'s); ``[next] breakthrough``: either's."""
    order = list(first(options))
    if choice in order:
        order.remove(choice)
        order.insert(0, choice)
    out: dict[str, Any] = {}
    origin: dict[str, tuple[str, str]] = {}
    prio = list(first(options))
    keys = sorted({k for p in prio for k, v in bodies.get(p, {}).items() if isinstance(v, list) and k not in SKIP})
    for key in [*[k for k in LIST_KEYS if k in keys], *[k for k in keys if k not in LIST_KEYS]]:  # every order list (move,
        rows: list[Any] = []                                                                       #   fleet, ... the later ones too)
        for p in prio:
            for i, v in enumerate(bodies.get(p, {}).get(key, []) or []):
                if key == "battle" and isinstance(v, dict):
                    same = [j for j, r in enumerate(rows) if isinstance(r, dict) and r.get("area") == v.get("area")]
                    if same:
                        j = same[0]
                        if order.index(p) < order.index(origin[f"{key}[{j}]"][0]):
                            rows[j] = copy.deepcopy(v)
                            origin[f"{key}[{j}]"] = (p, f"{key}[{i}]")
                        continue
                origin[f"{key}[{len(rows)}]"] = (p, f"{key}[{i}]")
                rows.append(copy.deepcopy(v))
        if rows:
            out[key] = rows
    for table in ("production", "final"):  # lists joined (each entry's origin kept), tables merged
        merged: dict[str, Any] = {}
        for p in prio:
            pr = bodies.get(p, {}).get(table)
            if not isinstance(pr, dict):
                continue
            for k, v in pr.items():
                if isinstance(v, list):
                    base = len(merged.get(k, []))
                    for i in range(len(v)):
                        origin[f"{table}.{k}[{base + i}]"] = (p, f"{table}.{k}[{i}]")
                    merged[k] = [*merged.get(k, []), *copy.deepcopy(v)]
                elif isinstance(v, dict):
                    merged[k] = _deep(merged.get(k, {}), v)
                else:
                    merged.setdefault(k, copy.deepcopy(v))
        if merged:
            out[table] = merged
    if any(bodies.get(p, {}).get("next", {}).get("breakthrough") for p in prio):
        out["next"] = {"breakthrough": True}
    brk = [(p, bodies[p]["breakthrough"]) for p in order if isinstance(bodies.get(p, {}).get("breakthrough"), dict)]
    acting = [(p, b) for p, b in brk if b.get("kind") != "end"]
    if acting or brk:
        out["breakthrough"] = copy.deepcopy((acting or brk)[0][1])
    return out, origin


def _deep(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(a)
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep(out[k], v)
        else:
            out.setdefault(k, copy.deepcopy(v))
    return out


WHERE = re.compile(r"^((?:production\.|final\.)?[a-z_]+\[\d+\])(.*)$")


def name_file(p: Problem, origin: dict[str, tuple[str, str]]) -> Problem:
    """A problem of the merged orders, named in the file it came from (``west: move[1].path``)."""
    m = WHERE.match(p.where)
    if m and m.group(1) in origin:
        party, where = origin[m.group(1)]
        return Problem(f"{party}: {where}{m.group(2)}", p.message, p.rule, p.hint)
    return Problem(f"west and ussr (merged): {p.where}", p.message, p.rule, p.hint)


# --- reports -----------------------------------------------------------------------------------

def _r_merged(e: Event) -> list[str]:
    files = " and the ".join(str(f) for f in sorted(e.data.get("files", [])))
    return [f"- The orders of the {files} players are played as one Allied player-turn's ({e.rule}: each file orders its "
            "own nations; merged, the West's first; a battle or breakthrough both give, by the Axis's allied_choice, A-75)."]


RENDER: dict[str, Any] = {"merged": _r_merged}
