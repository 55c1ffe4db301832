"""The bundled campaign scenario (scenarios/proud-monster/campaign/): its authored map has the
rulebook's places, ranges and hexsides where the rules put them, and its set-up meets every set-up
minimum (3.2-3.8) and stacking limit (6.1-6.5, 7.1-7.3), counted here one by one."""

from __future__ import annotations

import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable
from fractions import Fraction
from pathlib import Path

import pytest

from pbem.games.proud_monster.data import (
    MapData,
    Scenario,
    UnitSpec,
    load_scenario,
    stacking_value,
)
from pbem.games.proud_monster.validation import validate_scenario
from pbem.mechanics.hexgrid import adjacent, hexside_key, neighbours
from tests.clihelpers import run
from tests.paths import ROOT

FRONTIER = 22  # 3.3: the Frontier Zone is column 22 and west of it
AXIS_MINORS = ("romanian", "hungarian", "italian")  # 7.1
COUNTS_AS_GERMAN = ("german", "french", "croatian", "spanish")  # 7.5


@pytest.fixture(scope="module")
def sc() -> Scenario:
    return load_scenario("campaign")


def col(h: str) -> int:
    return int(h[:2])


def land(m: MapData, h: str) -> bool:
    return h in m.hexes and not m.hexes[h].water


def on_map_neighbours(m: MapData, h: str) -> list[str | None]:
    """The six neighbour positions of a hex: their ids on the map, None where the map has no hex."""
    out: list[str | None] = []
    for n in neighbours(m.numbering.parse(h)):
        nid = m.numbering.format(n) if 0 <= n.row and 0 <= n.col <= 99 else ""
        out.append(nid if nid in m.hexes else None)
    return out


def placed(sc: Scenario) -> dict[str, list[str]]:
    """Hex (or OKH area) -> the units set up there."""
    out: dict[str, list[str]] = {}
    for u, h in sc.setup:
        out.setdefault(h, []).append(u)
    return out


def border_hexes(m: MapData) -> list[str]:
    """3.3: the Soviet hexes on the border (12.18), north to south."""
    return sorted((h for h in m.hexes if m.hexes[h].country == "ussr" and not m.hexes[h].water
                   and any("border" in m.border_features(h, n) for n in m.neighbours(h))),
                  key=lambda h: m.numbering.parse(h).row)


# --------------------------------------------------------------------------- loading


def test_the_campaign_loads_in_reasonable_time_with_no_validation_problem() -> None:
    load_scenario.cache_clear()
    t0 = time.perf_counter()
    sc = load_scenario("campaign")
    loaded = time.perf_counter() - t0
    t0 = time.perf_counter()
    problems = validate_scenario(sc)
    checked = time.perf_counter() - t0
    print(f"\ncampaign: {len(sc.map.hexes)} hexes, {len(sc.map.hexsides)} hexsides, {len(sc.units)} units; "
          f"loaded in {loaded:.2f} s, validated in {checked:.2f} s")
    assert [p.render() for p in problems] == []
    assert loaded < 10.0 and checked < 10.0
    assert (sc.ruleset, sc.first_turn, sc.last_turn) == ("full", 1, 12)
    assert sc.units_provisional and "Provisional" in sc.units_note
    assert "not the published map" in sc.map.note and "invented" in sc.map.note


GENERATED = ("campaign/map.toml", "campaign/units.toml", "campaign/scenario.toml", "campaign-setup/scenario.toml")


def test_the_generator_is_deterministic_and_wrote_the_committed_files(tmp_path: Path) -> None:
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        r = subprocess.run([sys.executable, str(ROOT / "tools" / "make_campaign_map.py"), str(out)],
                           capture_output=True, text=True, check=False, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        outs.append({f: (out / f).read_bytes() for f in GENERATED})
    assert outs[0] == outs[1]
    for f in GENERATED:  # the committed scenarios are the generator's output, byte for byte
        assert outs[0][f] == (ROOT / "scenarios" / "proud-monster" / f).read_bytes(), f"{f} differs from the generator's output"
    for name in ("campaign", "campaign-setup"):
        gen = load_scenario(str(tmp_path / "a" / name / "scenario.toml"))
        assert validate_scenario(gen) == []


# --------------------------------------------------------------------------- the map


def test_the_map_covers_both_maps_from_the_zomo_to_the_east_edge(sc: Scenario) -> None:
    m = sc.map
    assert 2500 <= len(m.hexes) <= 3200
    pos = [m.numbering.parse(h) for h in m.hexes]
    assert (min(p.col for p in pos), max(p.col for p in pos)) == (10, 60)
    assert {h[2:4] for h in m.hexes if h.endswith("N")} == {f"{r:02d}" for r in range(27)}  # North rows 00-26
    assert "00" not in {h[2:4] for h in m.hexes if h.endswith("S")}  # 2.4: the join row has its North id
    east = sorted(h for h in m.hexes if col(h) == 60)
    assert len(east) == max(p.row for p in pos) + 1 and all(land(m, h) for h in east)  # 9.10: every row a source
    assert {h.terrain for h in m.hexes.values()} == {"clear", "forest", "hills", "swamp", "sea", "lake"}
    assert set().union(*m.hexsides.values()) == {"river", "border", "sivash", "kerch", "sea", "gas"}
    assert m.connected
    named = {h.place for h in m.hexes.values() if h.water}
    assert {"Baltic Sea", "Black Sea", "Sea of Azov", "Sivash", "Lake Ladoga", "Lake Ilmen", "Lake Peipus"} <= named


@pytest.mark.parametrize(
    ("hex_id", "kinds", "name", "vp", "md", "port"),
    [
        ("4201N", ("city",), "Leningrad", None, True, False),
        ("4100N", ("town",), "Oranienbaum", None, None, False),
        ("2705N", ("city", "large_town"), "Riga", None, False, False),
        ("2817N", ("city",), "Minsk", 1, True, False),
        ("5017N", ("city",), "Moscow", 9, True, False),
        ("5116N", ("city",), "Moscow", 9, True, False),
        ("4921N", ("city", "large_town"), "Tula", None, None, False),
        ("2512S", ("city",), "Odessa", None, None, True),
        ("2919S", ("city",), "Sevastopol", 4, None, True),
        ("4022S", ("city", "large_town"), "Novorossisk", None, None, True),
    ],
)
def test_the_rulebook_places_are_at_their_hexes(
    sc: Scenario, hex_id: str, kinds: tuple[str, ...], name: str, vp: int | None, md: bool | None, port: bool
) -> None:
    h = sc.map.hexes[hex_id]
    assert (h.settlement in kinds, h.place) == (True, name)
    assert h.terrain == "clear" or h.settlement != "city"  # 12.10
    assert vp is None or h.vp == vp
    assert md is None or h.md == md
    assert h.port == port


def test_the_named_cities_and_the_ports(sc: Scenario) -> None:
    m = sc.map
    where = {h.place: h for h in m.hexes.values() if h.settlement}
    assert where["Kharkov"].settlement == "city" and col(where["Kharkov"].id) == 42  # 3.4: column 42 runs through it
    for name in ("Kiev", "Smolensk", "Rostov", "Stalino", "Voroshilovgrad", "Yaroslavl", "Ivanovo"):
        assert where[name].settlement == "city", name
    for name in ("Kremenchug", "Simferopol", "Kerch"):  # 2.9: the militia names
        assert where[name].settlement in ("city", "large_town"), name
    assert sorted(h.id for h in m.hexes.values() if h.port) == ["2512S", "2919S", "4022S"]  # 9.17
    assert all(1 <= h.vp <= 9 for h in m.hexes.values() if h.settlement == "city")  # 4.2: every city
    large = [h for h in m.hexes.values() if h.settlement == "large_town"]
    assert sum(1 for h in large if h.vp) > len(large) / 2  # 4.2: most large towns
    assert sum(1 for h in m.hexes.values() if h.settlement == "town") >= 100


def test_the_rulebook_examples_hold_on_the_map(sc: Scenario) -> None:
    m = sc.map
    assert all(land(m, h) and m.hexes[h].country == "ussr" for h in ("2210N", "2310N"))  # 3.3's example
    assert all(land(m, h) for h in ("2407N", "2406N", "2506N"))  # 14.3's example
    assert "river" in m.border_features("2608N", "2707N") and m.hexes["2707N"].terrain != "swamp"  # 15.2: an MA
    assert all(land(m, n) for n in m.neighbours("2817N")) and len(m.neighbours("2817N")) == 6  # 8.7: Minsk takes 40
    moscow = (set(m.neighbours("5017N")) | set(m.neighbours("5116N"))) - {"5017N", "5116N"}
    assert len(moscow) == 8 and all(land(m, h) for h in moscow)  # 8.7: Moscow takes 60
    assert not m.hexes["4201N"].water and m.hexes["4201N"].country == "ussr"


def test_exactly_three_large_towns_and_no_city_in_the_frontier_zone(sc: Scenario) -> None:
    m = sc.map
    fz = [h for h in m.hexes.values() if h.country == "ussr" and col(h.id) <= FRONTIER]
    assert sorted(h.place for h in fz if h.settlement == "large_town") == ["Bialystok", "Kishinev", "Lvov"]  # 3.3
    assert not [h for h in fz if h.settlement == "city"]


def test_military_districts_are_spread_for_reinforcement_entry_and_replacements(sc: Scenario) -> None:
    md = [h for h in sc.map.hexes.values() if h.md]
    assert all(h.settlement in ("city", "large_town") and h.country == "ussr" for h in md)  # 8.7
    assert len(md) >= 10
    assert {h.place for h in md} >= {"Leningrad", "Minsk", "Moscow", "Kiev"}
    assert any(h.settlement == "large_town" for h in md)  # 8.13: MD town hexes too
    assert sum(1 for h in md if col(h.id) >= 50) >= 4  # room to enter far from the front
    assert any(h.id.endswith("N") and col(h.id) <= 45 for h in md) and any(h.id.endswith("S") for h in md)


def test_the_sivash_and_the_kerch_strait(sc: Scenario) -> None:
    m = sc.map
    assert sorted(k for k, f in m.hexsides.items() if "sivash" in f) == ["3215S-3216S", "3216S-3315S"]  # 9.15
    assert sorted(k for k, f in m.hexsides.items() if "kerch" in f) == ["3719S-3820S", "3819S-3820S"]
    crimea = {h for h, x in m.hexes.items() if x.zone == "SZ"}  # 13.2: the Crimea
    assert {"3216S", "3719S", "3819S", "2919S", "2817S", "3620S"} <= crimea and not crimea & {"3215S", "3315S", "3820S"}
    assert all(h.endswith("S") and land(m, h) for h in crimea)
    links = sorted(hexside_key(h, n) for h in crimea for n in m.neighbours(h)
                   if land(m, n) and n not in crimea and not m.border_features(h, n) & {"sea", "sivash", "kerch"})
    assert links == ["3114S-3115S"]  # the Perekop isthmus is the only dry way in


def test_the_gas_line_runs_from_the_gulf_of_finland_to_the_sea_of_azov(sc: Scenario) -> None:
    m = sc.map
    sides = sorted(k for k, f in m.hexsides.items() if "gas" in f)
    pairs = {k: frozenset(k.split("-")) for k in sides}

    def touch(a: str, b: str) -> bool:  # two hexsides meet at a corner: their three hexes are mutually adjacent
        u = pairs[a] | pairs[b]
        return len(u) == 3 and all(adjacent(m.numbering.parse(x), m.numbering.parse(y)) for x in u for y in u if x != y)

    links = {k: [j for j in sides if j != k and touch(k, j)] for k in sides}
    ends = sorted(k for k, v in links.items() if len(v) == 1)
    assert ends == ["3715S-3815S", "4000N-4100N"]  # 9.3
    assert all(len(v) in (1, 2) for v in links.values())
    assert flood(ends[0], lambda k: links[k]) == set(sides)  # one unbroken line
    west = reach(m, "1906N", blocked={"gas", "sea", "lake", "kerch"})
    east = reach(m, "6000N", blocked={"gas", "sea", "lake", "kerch"})
    assert not west & east and west | east == {h for h in m.hexes if land(m, h)}
    assert {h for h, x in m.hexes.items() if x.zone == "SZ"} <= west  # 9.3: the whole Crimea west of it
    assert {"4201N", "5017N", "4206S", "3820S"} <= east and {"2817N", "3002S", "2512S"} <= west
    assert all(len(pairs[k] & west) == 1 for k in sides)


def flood(start: str, nexts: Callable[[str], Iterable[str]]) -> set[str]:
    """Everything reached from start, one step at a time."""
    seen, todo = {start}, [start]
    while todo:
        for n in nexts(todo.pop()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def reach(m: MapData, start: str, blocked: set[str]) -> set[str]:
    """The land reached from start without crossing a hexside with a blocked feature."""
    return flood(start, lambda h: [n for n in m.neighbours(h) if land(m, n) and not m.border_features(h, n) & blocked])


def test_the_zomo_and_the_okh_hexes(sc: Scenario) -> None:
    m = sc.map
    zomo = {h: x for h, x in m.hexes.items() if x.zomo}
    assert all(x.okh in ("", "north", "south") for x in m.hexes.values())
    assert all(x.zomo for x in m.hexes.values() if x.okh)  # 8.2: every okh hex is ZOMO
    german = {h for h, x in zomo.items() if x.country == "germany"}
    assert {"1906N", "1025N", "1913N", "2013N", "2014N"} <= german  # 3.7, 9.11
    north = {h for h, x in zomo.items() if x.okh == "north"}
    assert north == german - {"1906N", "1907N", "1913N", "2013N", "2014N"} and {"1908N", "1025N"} <= north  # 8.2
    south = {h for h, x in zomo.items() if x.okh == "south"}
    assert south == {h for h, x in zomo.items() if x.country in ("hungary", "romania")}
    assert {"1026N", "2115S"} <= south and m.hexes["1026N"].country == "hungary"
    assert m.hexes["2115S"].country == "romania" and m.hexes["1403S"].country == "hungary"  # 3.7's example hex
    for h in zomo:  # the OKH areas are off the map, west of the strip: an okh hex is next to no hex there
        assert (None in on_map_neighbours(m, h)) == bool(zomo[h].okh), h
    assert all(m.hexes[h].country == "ussr" or m.hexes[h].water or m.hexes[h].zomo for h in m.hexes)


def test_the_border_hexes_of_3_3(sc: Scenario) -> None:
    m = sc.map
    border = border_hexes(m)
    assert border[0] == "2006N" and border[-1] == "2114S"
    assert {"1703S", "1804S"} <= set(border) and adjacent(m.numbering.parse("1703S"), m.numbering.parse("1804S"))
    romania = {h for h in border if any(m.hexes[n].country == "romania" for n in m.neighbours(h))}
    prut = [h for h in border if m.numbering.parse(h).row >= m.numbering.parse("1804S").row]
    assert set(prut) <= romania and prut[0] == "1804S" and len(prut) >= 10  # 1804S-2114S: along Romania
    assert all(adjacent(m.numbering.parse(a), m.numbering.parse(b)) for a, b in zip(prut, prut[1:], strict=False))


def test_every_beach_names_an_adjacent_all_sea_hex_on_the_crimean_south_coast(sc: Scenario) -> None:
    m = sc.map
    beach = {h: x.beach for h, x in m.hexes.items() if x.beach}
    assert {"2817S", "2919S", "3620S"} <= set(beach)  # 11.4: 2817S-3620S
    for h, sea in beach.items():
        assert m.hexes[h].zone == "SZ" and land(m, h)
        assert sea in m.neighbours(h) and m.hexes[sea].terrain == "sea" and m.hexes[sea].place == "Black Sea"
    coast = {h for h, x in m.hexes.items() if x.zone == "SZ" and col(h) <= 36
             and any(m.hexes[n].place == "Black Sea" for n in m.neighbours(h))}
    assert set(beach) == coast


def test_leningrad_lake_ladoga_and_the_key_hexes_of_9_16(sc: Scenario) -> None:
    m = sc.map
    assert all(land(m, h) for h in ("4300N", "4301N", "4401N", "4500N", "4000N", "4100N"))
    assert {"4300N", "4301N", "4100N"} <= set(m.neighbours("4201N"))  # 9.13: Oranienbaum next to Leningrad
    ladoga = [h for h, x in m.hexes.items() if x.place == "Lake Ladoga"]
    assert all(m.hexes[h].terrain == "lake" for h in ladoga) and "4400N" in ladoga
    # The lake hex off Leningrad's line 4300N lands only on 4401N and 4500N: holding 4301N puts
    # Leningrad on lake supply; holding 4401N and 4500N as well cuts that too.
    assert sorted(n for n in m.neighbours("4400N") if land(m, n)) == ["4300N", "4401N", "4500N"]
    assert m.hexes["4300N"].line == "Leningrad"


def test_the_fortifications(sc: Scenario) -> None:
    m = sc.map
    lines: dict[str, set[str]] = {}
    for h, x in m.hexes.items():
        if x.line:
            lines.setdefault(x.line, set()).add(h)
    assert set(lines) == set(sc.charts.spat.lines)  # 17.3: every SPAT line, no other
    assert {"3801N", "4303N"} <= lines["Luga north"] and {"4003N", "4105N"} <= lines["Luga south"]  # 14.25
    assert lines["Leningrad"] == {"4300N"} and "4921N" in lines["Mozhaisk"]
    for name, hexes in lines.items():  # each line is one chain of hexes
        assert reach_within(m, hexes) == hexes, name
    intact = {h: x.fort for h, x in m.hexes.items() if x.fort and not x.line}
    assert intact["2919S"] == intact["2512S"] == "heavy" and len(intact) >= 6  # 14.24, 14.28
    kiev = next(h for h, x in m.hexes.items() if x.place == "Kiev")
    assert intact[kiev] == "heavy"
    stalin = [h for h, x in m.hexes.items() if x.stalin]
    # 14.30: along the 1939 border, which on this map runs through columns 21-36 (the rotation of the
    # map's grid puts its Ukrainian part west of its Belorussian part)
    assert len(stalin) >= 25 and all(m.hexes[h].country == "ussr" and 21 <= col(h) <= 36 for h in stalin)
    assert sum(1 for h in stalin if h.endswith("N")) >= 10 and sum(1 for h in stalin if h.endswith("S")) >= 10
    assert all(not m.hexes[h].fort for h in stalin)


def reach_within(m: MapData, hexes: set[str]) -> set[str]:
    """The hexes of a set reached from its first one through the set."""
    return flood(min(hexes), lambda h: [n for n in m.neighbours(h) if n in hexes])


def test_the_minsk_moscow_highway(sc: Scenario) -> None:
    m = sc.map
    road = {h for h, x in m.hexes.items() if x.road}
    assert {"2817N", "5017N"} <= road and reach_within(m, road) == road  # 12.20: one chain between the ends
    assert sum(1 for h in road if m.hexes[h].terrain == "forest") >= 3  # through forest here and there
    ends = [h for h in road if sum(1 for n in m.neighbours(h) if n in road) == 1]
    assert sorted(ends) == ["2817N", "5017N"]


# --------------------------------------------------------------------------- the counters


def test_the_order_of_battle(sc: Scenario) -> None:
    units = sc.units
    german = [u for u in units.values() if u.side == "german"]
    soviet = [u for u in units.values() if u.side == "soviet"]
    assert 170 <= len(german) <= 200 and 400 <= len(soviet) <= 480
    assert {u.nat for u in german} == {"german", "italian", "romanian", "hungarian", "croatian", "french", "spanish"}
    assert all(u.steps == 4 for u in german if u.nat == "german" and u.type in ("tank", "motorized") and u.size == "XX")
    assert sum(1 for u in german if u.nat == "german" and u.type == "tank" and u.size == "XX") >= 17
    assert {"1SS", "2SS", "1SSBde", "2SSBde"} <= set(units)  # 2.10: four separate units
    assert (units["1SS"].size, units["1SSBde"].size) == ("XX", "X")
    assert sorted(u.id for u in german if u.type == "flak") == ["IFlak", "IIFlak", "IIIFlak"]  # 10.1
    assert all(units[u].size == "XXX" for u in ("IFlak", "IIFlak", "IIIFlak", "HF"))
    assert [u.id for u in german if u.type == "siege-artillery"] == ["ArKo"] and units["ArKo"].values == ((0, 1, 4),)
    assert units["250Sp"].nat == "spanish" and units["HF"].nat == "hungarian"
    assert not units["2Pz"].refit and not units["5Pz"].refit and units["1Pz"].refit  # 8.18
    guards = [u for u in soviet if u.steps == 2]
    assert len(guards) == 15 and all("Guards" in u.name for u in guards)  # 2.15
    assert all(u.steps == 1 for u in soviet if u not in guards)


def test_the_untried_pools_have_a_realistic_spread(sc: Scenario) -> None:
    pools: dict[tuple[str, str, int], list[UnitSpec]] = {}
    for u in sc.units.values():
        if u.side == "soviet" and u.steps == 1:
            pools.setdefault((u.type, u.size, u.values[0][2]), []).append(u)
    assert {("infantry", "XX", 5), ("infantry", "XX", 4), ("tank", "XX", 7), ("motorized", "XX", 7),
            ("cavalry", "XX", 7), ("infantry", "X", 5), ("tank", "X", 7)} <= set(pools)
    for key, us in pools.items():
        assert len(us) <= 256, key  # the largest die pbem rolls
        values = Counter(u.values[0][:2] for u in us)
        if len(us) >= 6:
            assert len(values) >= 4 and max(values.values()) <= len(us) / 2, key


# --------------------------------------------------------------------------- the set-up


def test_the_soviet_set_up_of_3_2_and_3_8(sc: Scenario) -> None:
    soviet = [(u, h) for u, h in sc.setup if sc.units[u].side == "soviet"]
    assert all(sc.map.hexes[h].country == "ussr" and sc.units[u].steps == 1 for u, h in soviet)
    cavalry = [h for u, h in soviet if sc.units[u].type == "cavalry" and sc.units[u].size == "XX"]
    assert (len(cavalry), sum(1 for h in cavalry if col(h) <= FRONTIER)) == (9, 5)  # 3.2: 5 FZ, 4 IZ
    assert not [u for u, _ in soviet if sc.units[u].type in ("tank", "motorized") and sc.units[u].size == "X"]


def test_the_frontier_zone_minimums_of_3_3(sc: Scenario) -> None:
    m = sc.map
    at = placed(sc)
    soviet = {h: [u for u in us if sc.units[u].side == "soviet"] for h, us in at.items()}
    border = border_hexes(m)
    assert [h for h in border if not soviet.get(h)] == []  # every border hex 2006N-1703S, and 1804S-2114S too
    large = [h for h, x in m.hexes.items() if x.settlement == "large_town" and col(h) <= FRONTIER and x.country == "ussr"]
    assert len(large) == 3 and all(soviet.get(h) for h in large)


def test_the_interior_zone_minimums_of_3_4(sc: Scenario) -> None:
    m = sc.map
    soviet = [h for u, h in sc.setup if sc.units[u].side == "soviet"]
    towns = [h for h, x in m.hexes.items() if x.settlement in ("city", "large_town") and col(h) > FRONTIER]
    assert [h for h in towns if h not in soviet] == []  # every city and large town of the IZ
    per_column = Counter(col(h) for h in soviet)
    assert {c: per_column[c] for c in range(23, 61) if per_column[c] < 4} == {}  # 4 in every IZ column, N and S


def test_the_german_set_up_of_3_7(sc: Scenario) -> None:
    m = sc.map
    german = [(u, h, sc.units[u]) for u, h in sc.setup if sc.units[u].side == "german"]
    in_hungary = [u for u, h, _ in german if h in m.hexes and m.hexes[h].country == "hungary"]
    assert in_hungary == ["HF"]  # 3.7(1)
    assert all(m.hexes[h].country == "romania" for _, h, s in german if s.nat == "romanian")  # 3.7(2)
    southern = [s for _, h, s in german if (h == "okh-south" or (h in m.hexes and m.hexes[h].country == "romania"))
                and s.nat == "german"]
    assert sum(1 for s in southern if not s.mechanized and s.size == "XX") <= 7  # 3.7(3)
    assert sum(1 for s in southern if s.type == "assault-gun") <= 1
    assert all(not s.mechanized or s.type == "assault-gun" for s in southern)
    for u, h, s in german:  # 3.7(4): every other unit in the Greater-German ZOMO or the North OKH area
        if s.nat in COUNTS_AS_GERMAN and s not in southern:
            assert h == "okh-north" or (m.hexes[h].zomo and m.hexes[h].country == "germany"), (u, h)
    assert not [u for u, _, s in german if s.nat == "italian"]
    held = [u for u, h, _ in german if h == "okh-north"]
    assert held and len(held) < len(german) / 4  # 8.4: some excess held back
    assert all(sc.units[u].steps == len(sc.units[u].values) for u, _, _ in german)  # 3.8: full strength


def test_stacking_at_the_start(sc: Scenario) -> None:
    for h, us in placed(sc).items():
        if h.startswith("okh"):
            continue
        specs = [sc.units[u] for u in us]
        assert len({s.side for s in specs}) == 1, h
        assert len(specs) <= 5, h  # 6.1, counting every unit as 1
        assert sum((stacking_value(s, details=True) for s in specs), Fraction(0)) <= 5, h  # 6.3, 6.4
        assert sum(1 for s in specs if s.side == "german" and s.size in ("III", "II")) <= 4, h  # 6.3
        minors = {s.nat for s in specs} & set(AXIS_MINORS)
        assert len(minors) <= 1, h  # 7.1
        if minors & {"romanian", "italian"}:  # 7.2, 7.3: at most one German unit with them
            assert sum(1 for s in specs if s.nat in COUNTS_AS_GERMAN) <= 1, h


def test_the_units_off_the_map_and_the_conversions(sc: Scenario) -> None:
    units = sc.units
    on_track = {u for _, u, _ in sc.reinforcements}
    at_start = {u for u, _ in sc.setup}
    assert "ArKo" not in on_track | at_start | set(sc.security) | set(sc.tank_brigades)  # 14.41
    assert len(sc.security) == 9 and all(units[u].type == "security" and units[u].steps == 1 for u in sc.security)
    assert len(sc.tank_brigades) == 48  # 8.9
    assert all((units[u].side, units[u].type, units[u].size) == ("soviet", "tank", "X") for u in sc.tank_brigades)
    guards = sorted(u.id for u in units.values() if u.side == "soviet" and u.steps == 2)
    assert sorted(g for *_, g in sc.conversions) == guards and not set(guards) & (on_track | at_start)  # 2.15, 8.11
    assert {t for t, *_ in sc.conversions} == {7, 10, 11}
    assert [(k, s) for t, k, s, _ in sc.conversions if t == 10] == [("tank", "X")]  # 3.5
    for _, kind, size, g in sc.conversions:
        assert (units[g].type, units[g].size) == (kind, size)
    everyone = at_start | on_track | set(sc.security) | set(sc.tank_brigades) | set(guards) | {"ArKo"}
    assert everyone == set(units)


def test_the_reinforcement_schedules(sc: Scenario) -> None:
    units = sc.units
    assert all(hex_id == "" for *_, hex_id in sc.reinforcements)  # the rules place them (8.3, 8.5, 8.7)
    assert {t for t, _, _ in sc.reinforcements} == set(range(2, 13))
    soviet = [(t, units[u]) for t, u, _ in sc.reinforcements if units[u].side == "soviet"]
    assert min(t for t, _ in soviet) == 2  # 8.7: none on GT1
    gt10 = Counter(f"{s.type} {s.size}" for t, s in soviet if t == 10)
    assert gt10 == {"cavalry XX": 2, "infantry X": 1, "infantry XX": 20, "tank XX": 1}  # 3.5
    german = {u: t for t, u, _ in sc.reinforcements if units[u].side == "german"}
    assert german["2Pz"] == german["5Pz"] == 7 and german["7Para"] == 6  # 2.17, 3.6
    assert {units[u].nat for u in german} >= {"italian", "spanish", "croatian", "french", "hungarian"}


# --------------------------------------------------------------------------- the command line


def test_pbem_new_starts_a_campaign_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run(["keygen", "alice"])
    run(["keygen", "bob"])
    r = run(["new", "campaign", "--side", "german=alice.pub", "--side", "soviet=bob.pub", "--key", "alice.key",
             "--game-id", "pm-campaign", "-o", "game"])
    assert r.output == "wrote game/0000.state.toml: game pm-campaign, awaiting joins from german, soviet (`pbem join`)\n"
    run(["join", "game/0000.state.toml", "--side", "german", "--key", "alice.key"])
    run(["join", "game/0000.state.toml", "--side", "soviet", "--key", "bob.key"])
    r = run(["adjudicate", "game/0000.state.toml", "game/0000-german.join.toml", "game/0000-soviet.join.toml",
             "--key", "alice.key"])
    assert r.output.endswith("awaits orders for GT1/1/german from german\n")
    r = run(["status", "game/0001.state.toml"])
    assert "(campaign)" in r.output and "GT1 sequence 1 german movement; German VP 0" in r.output
    run(["show", "game/0001.state.toml", "--svg", "map.svg"])
    root = ET.fromstring((tmp_path / "map.svg").read_text(encoding="utf-8"))
    lines = [e.get("class", "").split() for e in root.iter("{http://www.w3.org/2000/svg}line")]
    drawn = Counter(c[1] for c in lines if c and c[0] == "hexside")
    sides = Counter(f for fs in load_scenario("campaign").map.hexsides.values() for f in fs)
    assert drawn == sides and drawn["gas"] > 0  # every hexside feature, the GAS line too
