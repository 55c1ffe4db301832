"""Europe Engulfed's data layer: the bundled map, blocks, charts and scenarios load; the places the
rules name exist with the properties the rules give them; the map is connected as the rules need;
every table the digest gives (T-1 to T-20) is present with its numbers; broken data is refused with
each problem named (file, key, rule)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from pbem.errors import ModuleDataError
from pbem.games.europe_engulfed import data
from pbem.games.europe_engulfed.data import FORTRESS, EEMap, Scenario, Turn
from pbem.mechanics.places import LAND, SEA
from tests.paths import ROOT

DATA = ROOT / "scenarios" / "europe-engulfed"


@pytest.fixture(scope="module")
def s1939() -> Scenario:
    return data.load_scenario("1939")


@pytest.fixture(scope="module")
def em(s1939: Scenario) -> EEMap:
    return s1939.map


def one(em: EEMap, name: str) -> str:
    found = em.by_name(name)
    assert len(found) == 1, (name, found)
    return found[0]


# --- the bundled data loads -----------------------------------------------------------------------

def test_bundled_scenarios_load() -> None:
    assert data.scenario_names() == ["1939", "1941-barbarossa"]
    for name in data.scenario_names():
        s = data.load_scenario(name)
        assert s.provisional and s.blocks and s.digest.startswith("sha256:")
        assert s.map.places.note.startswith("AUTHORED AND PROVISIONAL")
    campaign, short = data.load_scenario("1939"), data.load_scenario("1941-barbarossa")
    assert (campaign.start.label, campaign.end.label, campaign.turns) == ("Sep/Oct 1939", "Nov/Dec 1945", 38)
    assert (short.start.label, short.end.label, short.turns) == ("May/Jun 1941", "Nov/Dec 1941", 4)
    assert campaign.digest != short.digest


def test_counts(em: EEMap) -> None:
    assert len(em.of_kind(LAND)) == 117
    assert len(em.of_kind(FORTRESS)) == 5
    assert em.of_kind(SEA) == ["atlantic", "baltic", "black-sea", "mediterranean", "persian-gulf", "red-sea"]
    assert em.of_kind("box") == ["usa"]


def test_turns() -> None:
    t = Turn.parse("1941-may")
    assert t.label == "May/Jun 1941" and t.key == "1941-may"
    assert t.plus(4) == Turn.parse("1942-jan") and t.plus(4).label == "Jan/Feb 1942"
    assert Turn.parse("1939-sep") < Turn.parse("1939-nov") < Turn.parse("1940-jan")


# --- the places the rules name --------------------------------------------------------------------

# D-2's place names, with the supplement's (S2.8): each is an area (or fortress, or box) of that name.
AREA_NAMES = [
    "Ruhr", "East Prussia", "Denmark", "Oslo", "Trondheim", "Sweden", "Netherlands", "Belgium", "Paris", "Normandy",
    "Pas de Calais", "Bordeaux", "Marseille", "Lyon", "Corsica", "Switzerland", "Portugal", "Gibraltar", "Sicily",
    "Sardinia", "Albania", "Athens", "Crete", "Bulgaria", "Ploesti", "Hungary", "Cyprus", "Malta", "Tobruk",
    "Upper Egypt", "Alexandria", "Sinai Desert", "Morocco", "Lebanon", "Syria", "Persia", "Leningrad", "Ladoga",
    "Onega Swamp", "Murmansk", "Moscow", "Baku", "Sevastopol", "Ural Mountains", "Bessarabia", "Lvov",
    "Brest-Litovsk", "Lithuania", "U.S.A.", "Stalingrad", "Guryev", "Gorky", "Tunisia", "Calabria",
]
# D-2's names of countries and regions made of several areas: each is a country of the map.
COUNTRIES = [
    "germany", "poland", "norway", "finland", "france", "spain", "italy", "yugoslavia", "greece", "romania", "turkey",
    "libya", "egypt", "french-north-africa", "french-levant", "ussr", "baltic-states", "britain",
]


@pytest.mark.parametrize("name", AREA_NAMES)
def test_named_area_exists(em: EEMap, name: str) -> None:
    assert em.by_name(name), name


@pytest.mark.parametrize("country", COUNTRIES)
def test_named_country_exists(em: EEMap, country: str) -> None:
    assert len(em.country(country)) >= 1
    assert all(em.area(p).country == country for p in em.country(country))


def test_fortresses(em: EEMap) -> None:
    # 6.85, Glossary "Fortress": five, each inside a surrounding area but Malta; Gibraltar's is Spanish
    names = {em.area(f).name.removesuffix(" Fortress"): f for f in em.fortresses()}
    assert set(names) == {"Leningrad", "Sevastopol", "Malta", "Tobruk", "Gibraltar"}
    assert em.area(names["Malta"]).within == ""
    assert em.area(em.area(names["Gibraltar"]).within).country == "spain"
    assert em.area(names["Sevastopol"]).within == one(em, "Crimea")
    assert em.area(names["Tobruk"]).within == one(em, "Cyrenaica")
    assert em.area(names["Leningrad"]).within == one(em, "Leningrad")
    for f in em.fortresses():
        a = em.area(f)
        assert a.terrain == "fortress"
        if a.within:
            assert em.features(f, a.within) == {"fortress"}
            assert em.fortress_of(a.within) == f
            # the surrounding area is a port while the fortress is friendly (Glossary, A-01)
            assert em.area(a.within).port_if in ("", f)


def test_straits(em: EEMap) -> None:
    # Glossary "Straits": Messina (Sicily-Italy), the Dardanelles (Turkey), Kerch (near Sevastopol)
    straits = {em.border_name(b.a, b.b): (b.a, b.b) for b in em.places.all_borders() if "strait" in b.features}
    assert set(straits) == {"Messina", "Dardanelles", "Kerch"}
    assert set(straits["Messina"]) == {one(em, "Sicily"), one(em, "Calabria")}
    assert {em.area(p).country for p in straits["Messina"]} == {"italy"}
    assert {em.area(p).country for p in straits["Dardanelles"]} == {"turkey"}
    assert one(em, "Crimea") in straits["Kerch"]


def test_terrain_the_rules_name(em: EEMap) -> None:
    assert em.area(one(em, "Ladoga")).terrain == "swamp"  # 3.2 "the Ladoga swamp area"
    assert em.area(one(em, "Onega Swamp")).terrain == "swamp"
    assert any(em.area(n).country == "finland" for n in em.places.neighbours(one(em, "Onega Swamp")))  # east of Finland
    urals = em.area(one(em, "Ural Mountains"))
    assert urals.terrain == "mountain" and urals.supply_source and urals.unlimited_placement  # 5.18, 3.2, 4.42
    sinai = em.area(one(em, "Sinai Desert"))
    assert sinai.terrain == "desert" and sinai.region == "middle-east"  # D-3, Glossary
    assert em.area(one(em, "Cyprus")).region == ""  # the Middle-East excludes Cyprus


def test_capitals_and_resources(em: EEMap) -> None:
    caps = {a.capital: p for p, a in em.areas.items() if a.capital}
    for nation, name in (("germany", "Berlin"), ("france", "Paris"), ("britain", "London"), ("ussr", "Moscow"),
                         ("italy", "Rome"), ("norway", "Oslo"), ("greece", "Athens"), ("vichy", "Lyon")):
        assert em.area(caps[nation]).name == name
    # 4.14: Moscow 4, Baku 5, Germany 5 x 6, Italy 2 x 5, France 2 x 8, Britain 3 x 8, USSR on the map 17
    assert em.area(one(em, "Moscow")).resource == 4 and em.area(one(em, "Baku")).resource == 5
    assert em.area(one(em, "Baku")).supply_source  # 3.2
    assert em.area(one(em, "Ploesti")).resource == 2 and em.area(one(em, "Marseille")).resource == 8  # 9.19, 9.52
    for nation, n, value in (("germany", 5, 6), ("italy", 2, 5), ("france", 2, 8), ("britain", 3, 8)):
        res = [a.resource for a in em.areas.values() if a.home == nation and a.resource]
        assert (len(res), set(res)) == (n, {value}), nation
    assert sum(a.resource for a in em.areas.values() if a.home == "ussr") == 17
    assert em.area(one(em, "Alexandria")).garrison == "britain"  # 4.7
    assert em.area(one(em, "Sicily")).home == "italy"  # 9.4: Sicily is an Italian home area
    heavy = [p for p, a in em.areas.items() if a.heavy_fort]
    assert heavy and all(em.area(p).home == "ussr" and em.area(p).resource for p in heavy)  # 6.95c


def test_paris_vichy_and_maginot(em: EEMap) -> None:
    paris = one(em, "Paris")
    assert len([n for n in em.places.neighbours(paris) if em.area(n).kind == LAND]) == 5  # 9.52
    south_france = {em.area(p).name for p in em.country("france") if em.area(p).weather == "south"}
    assert {"Lyon", "Marseille", "Corsica"} <= south_france  # 9.52 (a): Vichy's mainland and Corsica
    assert em.area(one(em, "Normandy")).weather == em.area(paris).weather == "west"
    maginot = [b for b in em.places.all_borders() if "maginot" in b.features]
    assert maginot
    for b in maginot:  # 6.84: the French side of the border with Germany and Belgium
        homes = {em.area(b.a).home, em.area(b.b).home}
        assert "france" in homes and homes - {"france"} <= {"germany", "belgium"}
    assert {em.area(p).country for p in em.country("french-north-africa")} == {"french-north-africa"}
    assert {em.area(p).name for p in em.country("french-levant")} == {"Lebanon", "Syria"}


def test_the_east(em: EEMap) -> None:
    # 9.25, 9.26: the areas the USSR occupies under the Pact; the four up-front areas
    assert em.area(one(em, "Bessarabia")).country == "romania"
    assert em.area(one(em, "Lvov")).country == em.area(one(em, "Brest-Litovsk")).country == "poland"
    assert em.area(one(em, "Lithuania")).country == "baltic-states"
    east_prussia = one(em, "East Prussia")
    assert em.area(east_prussia).home == "germany"
    assert one(em, "Lithuania") in em.places.neighbours(east_prussia)
    assert em.area(one(em, "Trondheim")).country == em.area(one(em, "Oslo")).country == "norway"  # 9.14, 9.35
    assert all(em.area(p).weather == "east" for p in em.country("ussr"))  # 9.21: no Soviet unit in the south zone


def test_ports_and_routes(em: EEMap) -> None:
    assert "red-sea" in em.area(one(em, "Upper Egypt")).ports  # 5.33, 7.25
    assert "persian-gulf" in em.area(one(em, "Persia")).ports  # 5.33
    assert "atlantic" in em.area(one(em, "Murmansk")).ports  # 9.35
    assert "atlantic" in em.area(one(em, "Morocco")).ports  # 3.32, 9.37
    assert "atlantic" in em.area("usa").ports  # 9.37
    assert "atlantic" in em.area(one(em, "Pas de Calais")).ports  # 2.28
    for p, a in em.areas.items():
        for s in a.ports:
            assert em.features(p, s) == {"coast"}
        for s, n in a.invasion.items():
            assert n >= 1 and "coast" in em.features(p, s)
    routes = [b for b in em.places.all_borders() if "air-route" in b.features]
    assert {b.a for b in routes} | {b.b for b in routes} >= {one(em, "Malta"), one(em, "Sicily")}  # 6.86
    for b in routes:
        assert all("coast" in em.features(p, b.data["via"]) for p in b.places)
    assert "canal" in em.features(one(em, "Alexandria"), one(em, "Sinai Desert"))  # the Suez Canal
    assert "cape-route" in em.features("atlantic", "red-sea")  # 3.32


def test_connected(em: EEMap) -> None:
    ids = em.places.place_ids()
    assert all(em.places.distance("berlin", p) is not None for p in ids)

    def land_component(start: str) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            here = todo.pop()
            for n in em.places.neighbours(here):
                feats = em.features(here, n)
                if n not in seen and em.area(n).kind in (LAND, FORTRESS) and not feats & {"coast", "air-route"}:
                    seen.add(n)
                    todo.append(n)
        return seen

    main = land_component(one(em, "Berlin"))
    # 3.1: supply over land (straits included) joins Europe, the USSR, the Middle East and Africa
    for name in ("Moscow", "Ural Mountains", "Baku", "Paris", "Leningrad Fortress", "Sevastopol", "Krasnodar",
                 "Sicily", "Persia", "Alexandria", "Morocco", "Tobruk", "Gibraltar", "Anatolia", "Murmansk"):
        assert one(em, name) in main, name
    islands = {p for p in em.of_kind(LAND, FORTRESS) if p not in main}
    assert {em.area(p).name for p in islands} == {"Scotland", "Midlands", "London", "Sardinia", "Corsica", "Crete",
                                                  "Cyprus", "Malta"}
    for p in islands:  # reached by sea (3.3)
        assert any(em.area(n).kind == SEA for n in em.places.neighbours(p))


# --- the blocks -----------------------------------------------------------------------------------

def test_blocks(s1939: Scenario) -> None:
    u = s1939.units
    assert sum(n.blocks + n.elite_blocks for n in u.nations.values()) == 284  # Part II
    colours = {k: (n.blocks, n.elite_blocks) for k, n in u.nations.items() if n.blocks}
    assert colours == {"germany": (68, 10), "italy": (20, 0), "axis-minors": (18, 0), "usa": (27, 0),
                       "france": (27, 0), "britain": (24, 0), "ussr": (68, 7), "neutral": (15, 0)}
    t = u.types
    assert {k: (v.klass, v.move, v.cost) for k, v in t.items()} == {
        "infantry": ("infantry", 1, 1), "militia": ("infantry", 1, 1), "cavalry": ("infantry", 2, 1),
        "airborne": ("infantry", 1, 2), "armor": ("armor", 2, 2)}  # D-5, 4.43
    assert not t["militia"].hit_bonus and t["militia"].cadre == 1  # Glossary, 4.43b
    assert u.step_cost("de-arm-e", cadre=True) == 8  # 4.43b's example: the cadre step of elite armor
    assert u.step_cost("de-inf", cadre=True) == 2 and u.step_cost("de-mil", cadre=True) == 1
    assert u.blocks["de-arm"].steps == 4 and u.blocks["it-inf"].steps == 3 and u.blocks["su-inf"].steps == 4  # D-5
    assert u.blocks["su-inf-e"].count >= 4  # 9.24e: four free elite infantry
    assert u.side_of("romania") == "axis" and u.side_of("ussr") == "allies"


def test_setups(s1939: Scenario) -> None:
    short = data.load_scenario("1941-barbarossa")
    assert short.pact and short.vichy and not s1939.pact
    assert s1939.at_war("germany", "poland") and not s1939.at_war("germany", "ussr")
    assert s1939.controller("gibraltar") == "allies" and s1939.controller("andalusia") == "neutral"  # 6.85
    assert s1939.controller("usa") == "allies" and s1939.production["ussr"] == 0  # 9.24
    assert short.controller("lyon") == "vichy" and short.controller("tobruk") == "allies"
    soviet = [b for b in short.blocks if b.nation == "ussr"]
    front = [b for b in soviet if b.area in data.UP_FRONT]
    assert 2 * len(front) >= len(soviet)  # 9.26
    assert len([b for b in short.blocks if b.nation == "germany" and b.area == "ploesti"]) <= 3  # 9.17e
    for s in (s1939, short):
        for f in s.map.fortresses():
            here = s.blocks_in(f)
            assert len(here) <= (2 if all(b.nation == "ussr" for b in here) else 1)  # 5.5, T-17
        assert all(b.id.startswith(f"{b.area}/{b.type}/") for b in s.blocks)


# --- the charts -----------------------------------------------------------------------------------

def test_every_table_present(s1939: Scenario) -> None:
    c = s1939.charts
    assert [c[k].label for k in data.TABLES] == [f"T-{i}" for i in range(1, 21)]
    assert {t.id for t in c.provisional()} >= {"t6_v_weapons", "t14_special_actions", "t16_lend_lease", "weather", "asw",
                                               "uboat_attack", "national_limits"}
    assert "conquest" in {t.id for t in c.provisional()}  # 10.0 is NOT IN SOURCE
    assert "axis_politics" in {t.id for t in c.provisional()}  # 9.13 year, mainland Italy
    assert all(t.note for t in c.provisional())


def test_table_values(s1939: Scenario) -> None:
    c = s1939.charts
    assert c["t1_hit_numbers"]["lowest"] == {"0": 6, "1": 5, "2": 4, "3": 3, "4": 2, "5": 1}  # T-1
    assert c["t2_dice"]["normal"] == {"defender": 1, "attacker": 1}  # T-2
    assert c["t2_dice"]["assault"] == {"defender": 2, "attacker": 2}
    assert set(c["t2_dice"]["reductions"]) == {"snow", "swamp", "out_of_supply", "maginot"}
    bonuses = {k: v["value"] for k, v in c["t3_hit_bonuses"].data.items() if isinstance(v, dict)}  # T-3
    assert bonuses == {**{k: 1 for k in "abcdefijkl"}, "g": 2, "h": 2}
    air = c["t4_air_war"]  # T-4
    assert air["must_intercept"] == {"clear": 5, "mud": 10} and air["uboat_strat_moves"] == 20
    assert air["bombing"][0] == {"from": "1939", "clear": 5, "mud": 6}
    assert air["bombing"][1]["clear"] == 4 and air["interceptors_vs_bombers"][1]["exchange"] == 5
    assert air["escorts_vs_interceptors"][1] == {"from": "1944-jan", "exchange": 5, "hit": 6, "escorts": "allied"}
    assert c["t5_flak"]["points_per_die"] == {"0": 0, "1": 5, "2": 4, "3": 3, "4": 2}  # T-5
    v = {r["roll"]: (r["werps"], r["known"]) for r in c["t6_v_weapons"]["rows"]}  # T-6
    assert v[5] == (2, True) and not any(v[r][1] for r in range(1, 5)) and c["t6_v_weapons"]["v2_modifier"] == 1
    t7 = c["t7_strategic_limits"]  # T-7
    assert t7["germany"] == {"uboats": 8, "v1": 6, "v2": 2, "aircraft": 4, "bombers": 2}
    assert t7["britain"] == {"aircraft": 2, "bombers": 1} and t7["usa"] == {"aircraft": 6, "bombers": 3}
    assert t7["max_held"] == {"bombers": 30, "fighters": 30, "uboats": 60}
    t8 = c["t8_naval_combat"]  # T-8
    assert (t8["equal_hit"], t8["smaller_part_hit"], t8["excess_hit"]) == (6, 6, 5)
    assert t8["loss_order"] == ["unused", "carrying", "used"]
    t9 = c["t9_interdiction"]  # T-9
    assert (t9["hit"], t9["mediterranean_hit"], t9["ratio"]) == (6, 5, 2)
    t10 = c["t10_naval_supply"]  # T-10
    assert t10["per_fp"] == {"britain": 4, "france": 4, "usa": 4, "axis": 3, "ussr": 3}
    assert (t10["cape_counts"], t10["beachhead_counts"], t10["transport_per_fp"], t10["cape_strat_move_fps"]) == (4, 2, 1, 4)
    p = c["t11_production"]  # T-11
    assert {n: (p[n]["basic"], p[n]["area"]) for n in ("germany", "italy", "france", "britain", "ussr", "usa")} == {
        "germany": (30, 6), "italy": (10, 5), "france": (16, 8), "britain": (24, 8), "ussr": (34, 1), "usa": (40, 0)}
    assert p["ussr"]["pre_war"] == {"1939": 0, "1940": 9, "1941": 17} and p["ussr_areas"] == {"moscow": 4, "baku": 5}
    assert p["italy"]["alone"] == 5 and p["minor"]["area"] == 2 and p["conquered"] == {"other": 2, "soviet_to_axis": 1}
    k = c["t12_costs"]  # T-12
    assert k["step"] == {"infantry": 1, "militia": 1, "cavalry": 1, "armor": 2, "airborne": 2}
    assert (k["gs"], k["special_action"], k["fleet_point"], k["field_fortification"], k["heavy_fortification"]) == (5, 5, 10, 5, 10)
    assert (k["fighter"], k["bomber"], k["uboat"], k["flak_level"], k["asw_level"], k["v2"]) == (3, 5, 1, 10, 15, 1)
    assert (k["v1_points_per_werp"], k["elite_factor"], k["cadre_factor"]) == (2, 2, 2)
    lim = c["t13_production_limits"]  # T-13
    assert (lim["fleet_per_turn"], lim["fleet_next_allowed"], lim["new_units_per_area"], lim["baku_contested"]) == (1, 2, 2, 1)
    assert lim["no_ploesti"] == {"from": 1943, "units": 2, "german_armor_steps": 3, "elite_steps": 1}
    sa = c["t14_special_actions"]  # T-14
    assert [r["limit"] for r in sa["germany"]] == [5, 4, 3] and [r["limit"] for r in sa["usa"]] == [1, 2, 3]
    assert [r["limit"] for r in sa["ussr"]] == [1, 2, 3] and sa["britain"][0]["limit"] == 2
    assert sa["italy"][0]["limit"] == sa["france"][0]["limit"] == 1 and sa["vichy"][0]["limit"] == 0
    assert c["t15_conscription"]["steps"] == [20, 15, 10, 5] and sum(c["t15_conscription"]["steps"]) == 50  # T-15
    ll = c["t16_lend_lease"]  # T-16
    assert (ll["murmansk_per_fp"], ll["persia_per_fp"], ll["germany_to_italy"], ll["us_max"]) == (2, 1, 5, 15)
    assert ll["murmansk_closed_by"] == "onega-swamp" and ll["murmansk_halved_by"] == "trondheim"
    st = c["t17_stacking"]  # T-17
    assert (st["area"], st["fortress"], st["soviet_fortress"], st["attacker_factor"], st["malta_after_invasion"]) == (0, 1, 2, 2, 1)
    mv = c["t18_movement"]  # T-18
    assert (mv["infantry"], mv["armor"], mv["cavalry"], mv["gs"], mv["out_of_supply"], mv["airborne_drop"]) == (1, 2, 2, 2, 1, 2)
    w = c["t19_weather"]  # T-19
    assert w["snow"]["attack_divide"] == 2 and w["snow"]["swamp_as"] == "rough" and not w["mud"]["armor_hit_bonus"]
    assert [w[x]["breakthrough"] for x in ("clear", "light-mud", "mud", "snow")] == [True, False, False, True]
    assert [w[x]["bombing_hit"] for x in ("clear", "light-mud", "mud", "snow")] == [5, 5, 6, 6]
    tr = c["t20_terrain"]  # T-20
    assert (tr["rough"]["defend"], tr["fortress"]["defend"], tr["maginot"]["defend"], tr["river"]["defend"]) == (1, 2, 2, 1)
    assert not tr["swamp"]["armor_enter"] and tr["swamp"]["infantry_attack_divide"] == 2 and not tr["mountain"]["axis_enter"]


# --- broken data is refused -----------------------------------------------------------------------

Edit = Callable[[str], str]


def broken(tmp_path: Path, scenario: Edit | None = None, map_: Edit | None = None, units: Edit | None = None,
           charts: Edit | None = None, base: str = "1939") -> list[str]:
    """Copy a bundled scenario and its files, edit them, load: the problems, rendered."""
    tmp_path.mkdir(exist_ok=True)
    for name, edit in (("map.toml", map_), ("units.toml", units), ("charts.toml", charts), ("victory.toml", None)):
        text = (DATA / name).read_text(encoding="utf-8")
        (tmp_path / name).write_text(edit(text) if edit else text, encoding="utf-8")
    (tmp_path / base).mkdir()
    text = (DATA / base / "scenario.toml").read_text(encoding="utf-8")
    path = tmp_path / base / "scenario.toml"
    path.write_text(scenario(text) if scenario else text, encoding="utf-8")
    with pytest.raises(ModuleDataError) as err:
        data.load_scenario(str(path))
    assert err.value.problems
    return [p.render() for p in err.value.problems]


def has(problems: list[str], *parts: str) -> bool:
    return any(all(x in p for x in parts) for p in problems)


def test_unbroken_copy_loads(tmp_path: Path) -> None:
    for name in ("map.toml", "units.toml", "charts.toml", "victory.toml"):
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "s").mkdir()
    shutil.copy(DATA / "1939" / "scenario.toml", tmp_path / "s" / "scenario.toml")
    assert data.load_scenario(str(tmp_path / "s" / "scenario.toml")).id == "1939"


def test_unknown_area_and_block(tmp_path: Path) -> None:
    out = broken(tmp_path, scenario=lambda t: t.replace("[setup.saxony]\nde-inf", "[setup.saxxony]\nde-xx"))
    assert has(out, "setup.saxxony", "not a land area", "[D-6]")


def test_unknown_block_type(tmp_path: Path) -> None:
    out = broken(tmp_path, scenario=lambda t: t.replace("[setup.saxony]\nde-inf", "[setup.saxony]\nde-xx"))
    assert has(out, "setup.saxony.de-xx", "not a block type", "[D-5]")


def test_too_many_steps_and_blocks(tmp_path: Path) -> None:
    out = broken(tmp_path, scenario=lambda t: t.replace("[setup.saxony]\nde-inf = [4]",
                                                        "[setup.saxony]\nde-inf = [5]\nde-abn = [3, 3, 3]"))
    assert has(out, "setup.saxony.de-inf[0]", "5 steps", "[D-5]")
    assert has(out, "3 blocks of 'de-abn'", "force pool has 2", "[4.4]")


def test_fortress_overstacked(tmp_path: Path) -> None:
    out = broken(tmp_path, scenario=lambda t: t.replace("[setup.gibraltar]\ngb-inf = [2]", "[setup.gibraltar]\ngb-inf = [2, 2]"))
    assert has(out, "setup.gibraltar", "2 units in a fortress; the limit is 1", "[5.5]")
    out = broken(tmp_path / "b", scenario=lambda t: t.replace("[setup.sevastopol]\nsu-inf = [3]",
                                                              "[setup.sevastopol]\nsu-inf = [3, 3, 3]"))
    assert has(out, "setup.sevastopol", "3 units in a fortress; the limit is 2", "[5.5]")


def test_wrong_side_armor_in_swamp_axis_in_urals(tmp_path: Path) -> None:
    out = broken(tmp_path, scenario=lambda t: t.replace("[setup.ural-mountains]\nsu-inf = [2]",
                                                        "[setup.ural-mountains]\nsu-inf = [2]\n\n[setup.ladoga]\nsu-arm = [3]"
                                                        "\n\n[setup.kazan]\nde-inf = [3]"))
    assert has(out, "setup.ladoga.su-arm", "swamp", "[5.15, A-27]")
    assert has(out, "setup.kazan.de-inf", "controlled by allies", "[Glossary]")
    assert has(out, "setup.kazan", "both sides", "[Glossary]") is False  # one side's block only: not contested


def test_pact_rules(tmp_path: Path) -> None:
    out = broken(tmp_path, base="1941-barbarossa", scenario=lambda t: t.replace(
        "[setup.lithuania]\nsu-inf = [4, 4, 4]", "[setup.smolensk]\nsu-inf = [4, 4, 4]").replace(
        "[setup.ploesti]\nde-inf = [4, 4]", "[setup.ploesti]\nde-inf = [4, 4, 4]"))
    assert has(out, "of 32 Soviet ground units are in", "[9.26]")
    assert has(out, "4 German units in Romania", "[9.17e]")
    assert has(out, "setup.lithuania.gs", "[9.26]") is False


def test_control_and_politics(tmp_path: Path) -> None:
    out = broken(tmp_path, scenario=lambda t: t.replace('axis = ["germany",', 'axis = ["atlantis", "paris", "germany",')
                 .replace('["germany", "poland"]', '["germany", "narnia"]'))
    assert has(out, "control.axis", "'atlantis' is neither a country nor an area", "[Glossary]")
    assert has(out, "setup.paris.fr-inf", "controlled by axis", "[Glossary]")
    assert has(out, "politics.war[0]", "narnia", "[D-4]")


def test_broken_map(tmp_path: Path) -> None:
    def edit(t: str) -> str:
        t = t.replace('{ features = ["strait"], name = "Kerch" }', '{ features = ["strait"], name = "Bosporus" }')
        t = t.replace('"alsace-lorraine lyon" = []\n', "")
        t = t.replace('"paris bordeaux" = []', "")
        t = t.replace('terrain = "mountain"', 'terrain = "alpine"')
        t = t.replace('"crete cyrenaica" = { features = ["air-route"], via = "mediterranean" }',
                      '"crete cyrenaica" = { features = ["air-route"], via = "black-sea" }')
        return t.replace("heavy_fort = true, port", "port").replace('name = "Kiev", country', 'name = "Kiev", heavy_fort = true, country')

    out = broken(tmp_path, map_=edit)
    assert has(out, "map.toml: borders", "the straits are Dardanelles, Kerch, Messina", "[Glossary]")
    assert has(out, "places.ural-mountains", "terrain 'alpine'", "[D-3]")
    assert has(out, "borders.crete cyrenaica", "coast of 'black-sea'", "[5.13]")
    assert has(out, "places.kiev", "heavy fortifications", "[6.95c]")


def test_resource_values(tmp_path: Path) -> None:
    out = broken(tmp_path, map_=lambda t: t.replace('capital = "ussr", resource = 4', 'capital = "ussr", resource = 3'))
    assert has(out, "places.moscow", "worth 4 (has 3)", "[4.14]")
    assert has(out, "ussr's home resource areas give 16 WERPs", "basic production on the map is 17", "[4.12]")


def test_paris_needs_five_neighbours(tmp_path: Path) -> None:
    out = broken(tmp_path, map_=lambda t: t.replace('"alsace-lorraine paris" = []\n', ""))
    assert has(out, "places.paris", "Paris has 4 surrounding areas", "[9.52]")


def test_broken_units(tmp_path: Path) -> None:
    def edit(t: str) -> str:
        t = t.replace("[blocks.de-cav]\nnation = \"germany\"\ntype = \"cavalry\"", "[blocks.de-cav]\nnation = \"germany\"\ntype = \"horse\"")
        return t.replace("[blocks.it-abn]\nnation = \"italy\"\ntype = \"airborne\"\nsteps = 2\ncount = 1",
                         "[blocks.it-abn]\nnation = \"italy\"\ntype = \"airborne\"\nsteps = 2\ncount = 2")

    out = broken(tmp_path, units=edit)
    assert has(out, "units.toml: blocks.de-cav", "type 'horse'", "[D-5]")
    assert has(out, "units.toml: nations.italy", "count 21 blocks; the colour has 20", "[Part II]")


def test_broken_charts(tmp_path: Path) -> None:
    def edit(t: str) -> str:
        t = t.replace("step = { infantry = 1,", "step = { infantry = 3,")
        t = t.replace("[t15_conscription]\nrule = \"9.24f\"\nknown = true", "[t15_conscription]\nrule = \"9.24f\"")
        return t.replace("[asw]\nrule = \"2.11\"\nprovisional = true", "[asw]\nrule = \"2.11\"\nknown = true\nprovisional = false")

    out = broken(tmp_path, charts=edit)
    assert has(out, "charts.toml: t15_conscription", "either known", "[T-15]")
    assert has(out, "charts.toml: asw", "NOT IN SOURCE", "[Part VI]")
    out = broken(tmp_path / "b", charts=lambda t: t.replace("step = { infantry = 1,", "step = { infantry = 3,"))
    assert has(out, "t12_costs.step.infantry", "is 3", "[4.43]")


def test_missing_table_and_schema(tmp_path: Path) -> None:
    out = broken(tmp_path, charts=lambda t: t.replace("[t17_stacking]", "[t17_stacked]"))
    assert has(out, "t17_stacked:", "not a table", "[Part V]")
    assert has(out, "the table 't17_stacking' (T-17) is missing", "[Part V]")
    out = broken(tmp_path / "b", scenario=lambda t: t.replace('start = "1939-sep"', 'start = "1939-september"'))
    assert has(out, "scenario.start", "schema europe-engulfed/scenario")


def test_unknown_scenario() -> None:
    with pytest.raises(ModuleDataError) as err:
        data.load_scenario("1812")
    assert "no Europe Engulfed scenario '1812'" in err.value.message and "1939" in err.value.hint
