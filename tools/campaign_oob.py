"""The campaign scenario's counters, set-up, reinforcements, conversions and pools (provisional).

Imported by make_campaign_map.py, which writes units.toml and scenario.toml with them. The
published counters, the Soviet set-up table and both reinforcement schedules are not in the
rulebook (digest D.5, D.6, 17.6): the units are the 1941 order of battle from general knowledge,
their values are invented in the spirit of the training counters, and the schedules are invented
around what the rulebook fixes: 9 Soviet cavalry divisions at the start, 5 in the Frontier Zone and
4 in the Interior Zone (3.2); no Soviet tank or motorized rifle brigade at the start (3.2); no
Soviet reinforcement on GT1 (8.7); on GT10 exactly 2 cavalry divisions, 1 rifle brigade, 20 rifle
divisions and 1 tank division (3.5); 15 two-step Guards units brought in by conversion on GT7, GT10
(one Guards tank brigade) and GT11 (8.11); 48 tank brigades rolled for from GT3 (8.9); 9 German
security divisions (8.21); the ArKo 0-1-4 (14.41); the 7th Parachute Division on GT6 (3.6); the 2nd
and 5th Panzer Divisions on GT7, never to refit (2.17, 8.18).

The set-up is made to meet every set-up rule by construction: 3.3 (a unit on every border hex from
2006N to 1703S, and on every border hex from 1804S to 2114S, which meets both readings of
Ambiguity 4; one in each Frontier Zone large town), 3.4 (one in every Interior Zone city and large
town, at least 4 in every Interior Zone column 23-60), 3.7 (the Hungarian Fast Corps alone in
Hungary, the Romanians in Romania, 7 German infantry divisions and 1 assault-gun battalion in
Romania, every other German unit in the Greater-German ZOMO or held back in the North OKH area),
stacking 6.1-6.5 and 7.1-7.3.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mapauthor import Coord, Sketch, hex_id, neighbours, side_key

from pbem.mechanics.hexgrid import Hex, distance


@dataclass
class Unit:
    """A counter as units.toml writes it (its `type` is `kind` here)."""

    id: str
    name: str
    side: str
    nat: str
    kind: str
    size: str
    values: list[str]
    refit: bool = True
    group: str = ""  # the comment heading it is written under


@dataclass
class Oob:
    units: list[Unit] = field(default_factory=list)
    setup: list[tuple[str, str, str]] = field(default_factory=list)  # (unit, hex or OKH area, comment heading)
    reinforcements: list[tuple[int, str]] = field(default_factory=list)
    conversions: list[tuple[int, str, str]] = field(default_factory=list)  # (GT, from, Guards unit)
    tank_brigades: list[str] = field(default_factory=list)
    security: list[str] = field(default_factory=list)

    def add(self, u: Unit) -> str:
        self.units.append(u)
        return u.id


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def spread(values: list[str], i: int) -> str:
    """The i-th counter of a pool: the pool's values taken with a stride, so that each kind of
    counter is spread over the whole pool (2.15: the values drawn are the counters of the pool)."""
    return values[(i * 7) % len(values)]


# --------------------------------------------------------------------------- German side

PANZER_STRONG = ["7-5-8", "6-4-8", "4-3-8", "3-2-8"]  # Pz III/IV divisions
PANZER_CZECH = ["6-4-8", "5-4-8", "4-3-8", "2-2-8"]  # the divisions with Czech tanks or weaker
MOTORIZED = ["5-5-7", "4-4-7", "3-3-7", "2-2-7"]
SS_MOTORIZED = ["6-5-7", "5-4-7", "3-3-7", "2-2-7"]
INFANTRY = ["4-4-5", "2-2-5"]

# Army groups at the start: (heading, ZOMO hexes, panzer, motorized, infantry, other units)
PZ_AT_START = {
    "North": [1, 6, 8], "Centre (north)": [7, 12, 19, 20], "Centre (south)": [3, 4, 10, 17, 18],
    "South": [9, 11, 13, 14, 16],
}
WEAK_PZ = {6, 7, 8, 12, 19, 20}
MOT_AT_START = {"North": [3, 36], "Centre (north)": [14, 18, 20], "Centre (south)": [10, 29], "South": [16, 25, 60]}
SS_AT_START = {"North": [("3SS", "SS Totenkopf Motorized Infantry Division")],
               "Centre (south)": [("2SS", "SS Das Reich Motorized Infantry Division")],
               "South": [("1SS", "Leibstandarte SS Adolf Hitler Motorized Infantry Division"),
                         ("5SS", "SS Wiking Motorized Infantry Division")]}
ID_AT_START = {
    "North": [1, 11, 21, 61, 217, 291, 12, 30, 32, 121, 122, 123, 126, 253, 206, 251, 254],
    "Centre (north)": [5, 8, 28, 161, 6, 26, 35, 129, 256, 102, 106, 110, 162],
    "Centre (south)": [7, 17, 23, 31, 34, 45, 131, 134, 137, 167, 197, 252, 258, 263, 268, 292, 293, 78],
    "South": [44, 56, 62, 75, 111, 168, 298, 299, 57, 95, 24, 68, 71, 125, 257, 262, 295, 296, 9],
}
ELEVENTH_ARMY = [22, 50, 72, 76, 170, 198, 239]  # 3.7: at most 7 German non-mechanized divisions in Romania
STUG = {"North": [184, 185], "Centre (north)": [189, 210], "Centre (south)": [177, 192, 201, 203],
        "South": [191, 197, 244]}
STUG_ROMANIA = 190
RECON = {"North": ["AA402"], "Centre (south)": ["AA403"], "South": ["AA404"]}
FLAK = {"North": ("IIIFlak", "III Flak Corps"), "Centre (south)": ("IFlak", "I Flak Corps"),
        "South": ("IIFlak", "II Flak Corps")}
OTHER_AT_START = {
    "North": [("4SS", "SS Polizei Division", "infantry", "XX", INFANTRY)],
    "Centre (south)": [("GD", "Infantry Regiment (mot.) Grossdeutschland", "motorized", "III", ["2-2-7"]),
                       ("1Kav", "1st Cavalry Division", "cavalry", "XX", ["3-3-6", "2-2-6"]),
                       ("900L", "900th Lehr Brigade (mot.)", "motorized", "X", ["2-2-7"])],
    "South": [("1Geb", "1st Mountain Division", "mountain", "XX", ["3-4-5", "2-2-5"]),
              ("4Geb", "4th Mountain Division", "mountain", "XX", ["3-4-5", "2-2-5"]),
              ("97J", "97th Light (Jager) Division", "light", "XX", ["3-4-6", "2-2-6"]),
              ("100J", "100th Light (Jager) Division", "light", "XX", ["3-4-6", "2-2-6"]),
              ("101J", "101st Light (Jager) Division", "light", "XX", ["3-4-6", "2-2-6"]),
              ("1SSBde", "1st SS Motorized Infantry Brigade", "motorized", "X", ["2-2-7"]),
              ("2SSBde", "2nd SS Motorized Infantry Brigade", "motorized", "X", ["2-2-7"])],
}
GERMAN_REINFORCEMENTS: dict[int, list[int]] = {  # GT -> infantry divisions (invented schedule)
    2: [52, 93, 98, 112, 260], 3: [183, 294, 86], 4: [339, 15], 5: [707], 8: [212], 9: [227], 12: [88],
}
OTHER_REINFORCEMENTS: list[tuple[int, str, str, str, str, str, list[str]]] = [
    # (GT, id, name, nationality, type, size, values)
    (2, "99J", "99th Light (Jager) Division", "german", "light", "XX", ["3-4-6", "2-2-6"]),
    (4, "FG", "SS Cavalry Brigade (Fegelein)", "german", "cavalry", "X", ["2-2-6"]),
    (6, "7Para", "7th Parachute (Air Landing) Division", "german", "infantry", "XX", ["4-5-5", "2-3-5"]),
    (8, "250Sp", "250th (Spanish Blue) Infantry Division", "spanish", "infantry", "XX", ["3-4-5", "2-2-5"]),
    (8, "Cr369", "369th Reinforced (Croatian) Infantry Regiment", "croatian", "infantry", "III", ["1-1-5"]),
    (10, "Fr638", "638th (French Volunteer) Infantry Regiment", "french", "infantry", "III", ["1-1-5"]),
    (10, "FL", "SS Volunteer Legion Flanders", "german", "infantry", "II", ["1-1-5"]),
    (2, "HuMt1", "1st Hungarian Mountain Brigade", "hungarian", "mountain", "X", ["1-2-5"]),
    (2, "HuBg8", "8th Hungarian Border Guard Brigade", "hungarian", "infantry", "X", ["1-2-5"]),
    (4, "Pasubio", "Italian Pasubio Infantry Division", "italian", "infantry", "XX", ["3-3-5", "1-2-5"]),
    (4, "Torino", "Italian Torino Infantry Division", "italian", "infantry", "XX", ["3-3-5", "1-2-5"]),
    (4, "Celere", "Italian 3rd Celere Division (Principe Amedeo Duca d'Aosta)", "italian", "cavalry", "XX",
     ["2-2-6", "1-1-6"]),
    (4, "3JN", "Italian 3 January Blackshirt Legion", "italian", "infantry", "III", ["1-1-5"]),
]
SECURITY = [207, 213, 221, 281, 285, 286, 403, 444, 454]
ROMANIANS: list[tuple[str, str, str, str, list[str]]] = [
    *((f"Ro{n}", f"Romanian {ordinal(n)} Infantry Division", "infantry", "XX", ["3-3-5", "1-2-5"])
      for n in (1, 2, 3, 5, 6, 7, 8, 10, 11, 13, 14, 15, 18, 21, 35)),
    ("RoGd", "Romanian Guard Division", "infantry", "XX", ["3-4-5", "2-2-5"]),
    ("RoFr", "Romanian Frontier Division", "infantry", "XX", ["2-3-5", "1-2-5"]),
    ("RoArm1", "Romanian 1st Armoured Division", "tank", "XX", ["4-2-7", "2-1-7"]),
    *((f"RoMt{n}", f"Romanian {ordinal(n)} Mountain Brigade", "mountain", "X", ["2-3-5"]) for n in (1, 2, 4)),
    *((f"RoCav{n}", f"Romanian {ordinal(n)} Cavalry Brigade", "cavalry", "X", ["1-1-6"]) for n in (5, 6, 7, 8)),
]


def german_side(o: Oob) -> dict[str, list[str]]:
    """The German-side counters; returns the set-up units of each group (army group, Romania, Hungary)."""
    groups: dict[str, list[str]] = {g: [] for g in PZ_AT_START}

    def g(uid: str, name: str, type_: str, size: str, values: list[str], nat: str = "german",
          refit: bool = True, group: str = "") -> str:
        return o.add(Unit(uid, name, "german", nat, type_, size, values, refit, group))

    for grp in PZ_AT_START:
        for n in PZ_AT_START[grp]:
            groups[grp].append(g(f"{n}Pz", f"{ordinal(n)} Panzer Division", "tank", "XX",
                                 PANZER_CZECH if n in WEAK_PZ else PANZER_STRONG, group="Panzer divisions (2.14: 4 steps)"))
    for n in (2, 5):  # 2.17, 8.18: arrive on GT7 and never refit
        o.reinforcements.append((7, g(f"{n}Pz", f"{ordinal(n)} Panzer Division", "tank", "XX", PANZER_STRONG,
                                      refit=False, group="Panzer divisions (2.14: 4 steps)")))
    for grp in MOT_AT_START:
        for n in MOT_AT_START[grp]:
            groups[grp].append(g(f"{n}Mot", f"{ordinal(n)} Motorized Infantry Division", "motorized", "XX", MOTORIZED,
                                 group="Motorized infantry divisions (2.14: 4 steps), SS motorized divisions (2.10)"))
        for uid, name in SS_AT_START.get(grp, []):
            groups[grp].append(g(uid, name, "motorized", "XX", SS_MOTORIZED,
                                 group="Motorized infantry divisions (2.14: 4 steps), SS motorized divisions (2.10)"))
    for grp, ns in ID_AT_START.items():
        for n in ns:
            groups[grp].append(g(f"{n}ID", f"{ordinal(n)} Infantry Division", "infantry", "XX", INFANTRY,
                                 group="Infantry divisions"))
    romania = [g(f"{n}ID", f"{ordinal(n)} Infantry Division", "infantry", "XX", INFANTRY, group="Infantry divisions")
               for n in ELEVENTH_ARMY]
    for gt, ns in GERMAN_REINFORCEMENTS.items():
        for n in ns:
            o.reinforcements.append((gt, g(f"{n}ID", f"{ordinal(n)} Infantry Division", "infantry", "XX", INFANTRY,
                                           group="Infantry divisions")))
    for grp, items in OTHER_AT_START.items():
        for uid, name, type_, size, values in items:
            groups[grp].append(g(uid, name, type_, size, values, group="Mountain, light and cavalry divisions, "
                                 "brigades and regiments (2.9, 2.10)"))
    for grp, ns in STUG.items():
        for n in ns:
            groups[grp].append(g(f"StuG{n}", f"{ordinal(n)} Assault Gun Battalion", "assault-gun", "II", ["2-1-8"],
                                 group="Assault-gun and recon battalions"))
    romania.append(g(f"StuG{STUG_ROMANIA}", f"{ordinal(STUG_ROMANIA)} Assault Gun Battalion", "assault-gun", "II",
                     ["2-1-8"], group="Assault-gun and recon battalions"))
    for grp, ids in RECON.items():
        for uid in ids:
            groups[grp].append(g(uid, f"{ordinal(int(uid[2:]))} Armored Reconnaissance Battalion", "armored-recon",
                                 "II", ["1-1-8"], group="Assault-gun and recon battalions"))
    for grp, (uid, name) in FLAK.items():  # 10.1: the 3 Flak corps
        groups[grp].append(g(uid, name, "flak", "XXX", ["1-2-7"], group="Flak corps (10.1)"))
    # 14.41: the ArKo, formed during the game; in neither the set-up nor the reinforcements
    g("ArKo", "Artillery Command (ArKo)", "siege-artillery", "XX", ["0-1-4"], group="ArKo (14.41)")
    for n in SECURITY:  # 8.21: held off the map, deployed in groups of 3
        o.security.append(g(f"{n}Sich", f"{ordinal(n)} Security Division", "security", "XX", ["1-2-5"],
                            group="Security divisions (8.21)"))
    for gt, uid, name, nat, type_, size, values in OTHER_REINFORCEMENTS:
        o.reinforcements.append((gt, g(uid, name, type_, size, values, nat=nat, group="Reinforcements: "
                                       "other German, Spanish, Croatian, French, Hungarian and Italian units")))
    hungary = [g("HF", "Hungarian Fast Corps", "motorized", "XXX", ["4-3-7", "2-2-7"], nat="hungarian",
                 group="Hungarian Fast Corps (6.3: 1 unit)")]
    roman = [g(uid, name, type_, size, values, nat="romanian", group="Romanian units")
             for uid, name, type_, size, values in ROMANIANS]
    groups["Romania (German)"] = romania
    groups["Romania"] = roman
    groups["Hungary"] = hungary
    return groups


# --------------------------------------------------------------------------- Soviet side (2.15: 1 step, untried)
# The values of each pool (type, size and MF, 2.15): the counters an untried unit may turn out to be.
RD_VALUES = ["1-2", "2-2", "2-3", "1-2", "1-3", "2-3", "2-2", "3-3", "1-2", "2-3", "1-1", "2-2", "2-3", "1-2",
             "3-2", "2-3", "1-3", "2-2", "3-3", "1-2"]
MILITIA_VALUES = ["1-1", "1-2", "0-1", "1-1", "1-2", "2-1", "1-1", "1-2"]
TD_VALUES = ["3-1", "4-2", "3-2", "2-1", "5-3", "3-1", "4-2", "3-2", "2-1", "6-3"]
MRD_VALUES = ["3-3", "2-2", "3-1", "4-3", "2-3", "3-3", "2-2", "1-2"]
CD_VALUES = ["2-2", "1-2", "2-1", "2-2", "1-1", "2-1", "1-2", "2-2"]
RB_VALUES = ["1-1", "1-2", "2-1", "1-1", "1-2", "2-2", "1-1", "1-2"]
TB_VALUES = ["2-1", "1-1", "3-1", "2-1", "2-2", "1-1", "3-1", "2-1"]
MRB_VALUES = ["1-1", "2-1", "1-2", "2-2"]
MOUNTAIN_VALUES = ["2-3", "1-2", "2-2", "2-3", "1-3", "2-2"]
FORTRESS_VALUES = ["1-3", "0-2", "1-2", "1-3", "0-3", "1-2"]

FZ_CAVALRY = [3, 6, 9, 14, 36]  # 3.2: 9 cavalry divisions at the start, 5 in the Frontier Zone ...
IZ_CAVALRY = [5, 17, 24, 32]  # ... and 4 in the Interior Zone
FZ_TANK = [4, 7, 22, 30, 8, 32, 11, 16, 19, 10]
IZ_TANK = [1, 2, 3, 5, 12, 13, 14, 15, 17, 18, 20, 21, 23, 24, 25, 28, 29, 34, 35, 37]
FZ_MOTORIZED = [29, 81, 15, 212, 215]
IZ_MOTORIZED = [1, 69, 82, 84, 103, 109, 131, 185, 202, 208]
MOUNTAIN = [44, 58, 60, 96, 192, 9, 47, 63]  # 4 in the Frontier Zone, 4 in the Interior Zone
# 8 fortified regions on the border (the hexes they hold), 4 on the Stalin Line in the Interior Zone
FORTIFIED = [68, 66, 64, 62, 2, 41, 35, 84, 1, 3, 5, 8]
FORTIFIED_HEXES = ["1914N", "1815N", "1715N", "1718N", "1721N", "1524N", "1225N", "1908S"]
RIFLE_BRIGADES = ["1st Naval Infantry Brigade", "2nd Naval Infantry Brigade", "3rd Naval Infantry Brigade",
                  "201st Airborne Brigade", "204th Airborne Brigade", "211th Airborne Brigade",
                  "212th Airborne Brigade", "214th Airborne Brigade"]
SOVIET_START_RIFLE = 168
MILITIA: dict[int, list[tuple[str, str]]] = {  # 2.9: the militia divisions and their cities
    3: [("1LM", "1st Leningrad Militia Division"), ("2LM", "2nd Leningrad Militia Division"),
        ("3LM", "3rd Leningrad Militia Division"), ("1MM", "1st Moscow Militia Division"),
        ("2MM", "2nd Moscow Militia Division"), ("3MM", "3rd Moscow Militia Division")],
    4: [("4MM", "4th Moscow Militia Division"), ("1GM", "1st Guards Militia Division (Leningrad)"),
        ("2GM", "2nd Guards Militia Division (Leningrad)"), ("1KM", "1st Kiev Militia Division"),
        ("2KM", "2nd Kiev Militia Division"), ("1SM", "1st Smolensk Militia Division")],
    5: [("1OM", "1st Odessa Militia Division"), ("1CM", "1st Crimean Militia Division"),
        ("1KRM", "1st Kremenchug Militia Division"), ("5MM", "5th Moscow Militia Division")],
    6: [("1STM", "1st Stalino Militia Division"), ("1M", "1st Militia Division"), ("2M", "2nd Militia Division")],
    7: [("1VM", "1st Voroshilovgrad Militia Division"), ("3M", "3rd Militia Division")],
    8: [("1YM", "1st Yaroslavl Militia Division"), ("1IM", "1st Ivanovo Militia Division")],
    9: [("4M", "4th Militia Division")],
}
# The invented schedule (17.6): GT -> counts. GT10 is the rulebook's (3.5): 2 CD, 1 RB, 20 RD, 1 TD.
SCHEDULE: dict[int, dict[str, int]] = {
    2: {"RD": 11, "TD": 2, "MRD": 2, "CD": 2},
    3: {"RD": 10, "TD": 1, "CD": 4},
    4: {"RD": 9, "MRD": 1, "CD": 4, "RB": 2},
    5: {"RD": 7, "CD": 2, "RB": 2, "TB": 2},
    6: {"RD": 6, "TD": 1, "CD": 1, "RB": 2, "TB": 2, "MRB": 1},
    7: {"RD": 5, "CD": 1, "RB": 1, "TB": 2},
    8: {"RD": 5, "RB": 2, "TB": 2, "MRB": 1},
    9: {"RD": 4, "CD": 1, "RB": 1},
    10: {"RD": 20, "CD": 2, "RB": 1, "TD": 1},
    11: {"RD": 4, "CD": 1, "RB": 2, "TB": 2, "MRB": 1},
    12: {"RD": 4, "TD": 1, "RB": 1, "TB": 2},
}
REINFORCEMENT_NUMBERS = {"TD": [101, 102, 104, 105, 108, 112], "MRD": [106, 107, 110],
                         "CD": [43, 44, 45, 46, 47, 49, 50, 52, 53, 54, 55, 56, 57, 60, 61, 62, 64, 66, 68, 75],
                         "RB": list(range(4, 9)) + list(range(33, 44)), "TB": list(range(121, 133)),
                         "MRB": [1, 2, 3]}
GUARDS: list[tuple[int, str, str, str, str, list[str]]] = [  # 8.11, 2.15: (GT, id, name, from, size, values)
    *((7, f"{n}GdRD", f"{ordinal(n)} Guards Rifle Division", "infantry", "XX", ["4-4-5", "2-3-5"]) for n in range(1, 7)),
    (10, "1GdTB", "1st Guards Tank Brigade", "tank", "X", ["5-3-7", "3-2-7"]),
    *((11, f"{n}GdRD", f"{ordinal(n)} Guards Rifle Division", "infantry", "XX", ["4-4-5", "2-3-5"]) for n in (7, 8)),
    *((11, f"{n}GdCD", f"{ordinal(n)} Guards Cavalry Division", "cavalry", "XX", ["3-3-7", "2-2-7"])
      for n in range(1, 5)),
    *((11, f"{n}GdTB", f"{ordinal(n)} Guards Tank Brigade", "tank", "X", ["5-3-7", "3-2-7"]) for n in (2, 3)),
]
TANK_BRIGADE_GROUP = list(range(1, 49))  # 8.9: the 48 tank brigades


class Pools:
    """Soviet counters by pool, numbered so that each pool's values are spread (spread())."""

    def __init__(self, o: Oob) -> None:
        self.o = o
        self.count: dict[str, int] = {}

    def add(self, pool: str, uid: str, name: str, type_: str, size: str, values: list[str], mf: int,
            group: str) -> str:
        i = self.count.get(pool, 0)
        self.count[pool] = i + 1
        return self.o.add(Unit(uid, name, "soviet", "soviet", type_, size, [f"{spread(values, i)}-{mf}"], group=group))

    def rd(self, n: int) -> str:
        return self.add("RD", f"{n}RD", f"{ordinal(n)} Rifle Division", "infantry", "XX", RD_VALUES, 5,
                        "Rifle divisions (infantry XX, MF 5)")

    def kind(self, kind: str, n: int) -> str:
        if kind == "RD":
            return self.rd(n)
        spec = {"TD": ("TD", "Tank Division", "tank", "XX", TD_VALUES, 7, "Tank divisions"),
                "MRD": ("MRD", "Motorized Rifle Division", "motorized", "XX", MRD_VALUES, 7, "Motorized rifle divisions"),
                "CD": ("CD", "Cavalry Division", "cavalry", "XX", CD_VALUES, 7, "Cavalry divisions"),
                "TB": ("TB", "Tank Brigade", "tank", "X", TB_VALUES, 7, "Tank brigades"),
                "MRB": ("MRB", "Motorized Rifle Brigade", "motorized", "X", MRB_VALUES, 7, "Motorized rifle brigades"),
                "MtRD": ("MtRD", "Mountain Rifle Division", "mountain", "XX", MOUNTAIN_VALUES, 5,
                         "Mountain rifle divisions"),
                "UR": ("UR", "Fortified Region", "fortress", "X", FORTRESS_VALUES, 2, "Fortified regions")}[kind]
        suffix, title, type_, size, values, mf, group = spec
        return self.add(kind, f"{n}{suffix}", f"{ordinal(n)} {title}", type_, size, values, mf, group)

    def rb(self, name: str) -> str:
        n = int("".join(ch for ch in name.split()[0] if ch.isdigit()))
        uid = f"{n}{'NB' if 'Naval' in name else 'AB' if 'Airborne' in name else 'RB'}"
        return self.add("RB", uid, name, "infantry", "X", RB_VALUES, 5, "Rifle brigades (rifle, naval infantry, "
                        "airborne: 2.11)")


def soviet_side(o: Oob) -> dict[str, list[str]]:
    """The Soviet counters; returns the set-up units by zone and kind."""
    p = Pools(o)
    start: dict[str, list[str]] = {}
    start["FZ CD"] = [p.kind("CD", n) for n in FZ_CAVALRY]
    start["IZ CD"] = [p.kind("CD", n) for n in IZ_CAVALRY]
    start["FZ TD"] = [p.kind("TD", n) for n in FZ_TANK]
    start["IZ TD"] = [p.kind("TD", n) for n in IZ_TANK]
    start["FZ MRD"] = [p.kind("MRD", n) for n in FZ_MOTORIZED]
    start["IZ MRD"] = [p.kind("MRD", n) for n in IZ_MOTORIZED]
    start["FZ MtRD"] = [p.kind("MtRD", n) for n in MOUNTAIN[:4]]
    start["IZ MtRD"] = [p.kind("MtRD", n) for n in MOUNTAIN[4:]]
    start["FZ UR"] = [p.kind("UR", n) for n in FORTIFIED[:8]]
    start["IZ UR"] = [p.kind("UR", n) for n in FORTIFIED[8:]]
    start["IZ RB"] = [p.rb(name) for name in RIFLE_BRIGADES]
    used = set(MOUNTAIN)
    numbers = [n for n in range(1, 201) if n not in used]
    picks = [numbers[i * len(numbers) // SOVIET_START_RIFLE] for i in range(SOVIET_START_RIFLE)]
    start["RD"] = [p.rd(n) for n in picks]
    next_rd = 201
    taken = {k: 0 for k in REINFORCEMENT_NUMBERS}
    rb_names = {n: f"{ordinal(n)} {'Naval Infantry' if n < 10 else 'Rifle'} Brigade" for n in REINFORCEMENT_NUMBERS["RB"]}
    for gt, counts in SCHEDULE.items():
        for kind, n in counts.items():
            for _ in range(n):
                if kind == "RD":
                    uid = p.rd(next_rd)
                    next_rd += 1
                else:
                    num = REINFORCEMENT_NUMBERS[kind][taken[kind]]
                    taken[kind] += 1
                    uid = p.rb(rb_names[num]) if kind == "RB" else p.kind(kind, num)
                o.reinforcements.append((gt, uid))
        for uid, name in MILITIA.get(gt, []):
            o.reinforcements.append((gt, p.add("militia", uid, name, "infantry", "XX", MILITIA_VALUES, 4,
                                               "Militia divisions (2.9; infantry XX, MF 4)")))
    o.tank_brigades = [p.kind("TB", n) for n in TANK_BRIGADE_GROUP]
    for gt, uid, name, kind, size, values in GUARDS:
        o.add(Unit(uid, name, "soviet", "soviet", kind, size, values, group="Guards (2.15: 2 steps; 8.11)"))
        o.conversions.append((gt, f"{kind} {size}", uid))
    return start


# --------------------------------------------------------------------------- the set-up (3.2-3.8)
FRONTIER_LAST_COLUMN = 22  # 3.3
STACK = 5  # 6.1
ZOMO_GROUPS = {  # 3.7: the Greater-German ZOMO hexes of each army group, north to south
    "North": [f"19{r:02d}N" for r in range(6, 13)],
    "Centre (north)": ["1813N", "1814N", "1913N", "2013N", "2014N"],
    "Centre (south)": ["1714N", "1615N", *(f"16{r:02d}N" for r in range(16, 24))],
    "South": ["1523N", "1423N", "1323N", "1224N", "1124N", "1025N"],
}
ELEVENTH_ARMY_HEXES = ["1807S", "1808S"]  # 3.7: German-only stacks in Romania (7.3 forbids more than one
HUNGARY_HEX = "1302S"  # German unit with Romanians)
WEST_LAST_COLUMN = 40  # the Interior Zone's mechanized divisions stand in columns 23-40


def soviet_setup(o: Oob, sk: Sketch, where: dict[str, Coord], border: list[Coord], start: dict[str, list[str]]) -> None:
    """3.3 and 3.4 by construction (see the module docstring)."""
    stacks: dict[Coord, list[str]] = {}

    def put(k: Coord, uid: str, heading: str) -> None:
        stacks.setdefault(k, []).append(uid)
        if len(stacks[k]) > STACK:
            raise SystemExit(f"Soviet set-up: more than {STACK} units in {hex_id(*k)}")
        o.setup.append((uid, hex_id(*k), heading))

    rifle = list(start["RD"])
    hungary = {k for k, v in sk.hexes.items() if v.get("country") == "hungary"}
    carpathian = [k for k in border if any(n in hungary for n in neighbours(*k))]
    mountain = list(start["FZ MtRD"])
    fortified = dict(zip(FORTIFIED_HEXES, start["FZ UR"], strict=True))
    head = "Frontier Zone (3.3): a unit on every border hex 2006N-1703S and 1804S-2114S"
    for k in border:
        if hex_id(*k) in fortified:
            put(k, fortified.pop(hex_id(*k)), head)
        elif k in carpathian and mountain:
            put(k, mountain.pop(0), head)
        else:
            put(k, rifle.pop(0), head)
    if mountain or fortified:
        raise SystemExit("Soviet set-up: Frontier Zone mountain or fortified units left over")
    large = sorted(k for k, v in sk.hexes.items() if "large_town" in v and k[0] <= FRONTIER_LAST_COLUMN
                   and v.get("country", "ussr") == "ussr")
    head = "Frontier Zone (3.3): each of its 3 large towns; the mechanized corps and cavalry behind the border"
    for k in large:
        put(k, rifle.pop(0), head)
    depots = large + sorted(k for k, v in sk.hexes.items() if "town" in v and k[0] <= FRONTIER_LAST_COLUMN
                            and k not in border and v.get("country", "ussr") == "ussr")
    reserves = [*start["FZ TD"], *start["FZ MRD"], *start["FZ CD"]]
    for i, uid in enumerate(reserves):
        put(depots[i % len(depots)], uid, head)
    head = "Interior Zone (3.4): every city and large town"
    iz = sorted(k for k, v in sk.hexes.items() if ("city" in v or "large_town" in v) and k[0] > FRONTIER_LAST_COLUMN)
    for k in iz:
        put(k, rifle.pop(0), head)
    cities = [k for k in iz if "city" in sk.hexes[k]]
    # The other Interior Zone units make up every column's 4 (3.4): the fortified regions on the
    # Stalin Line, the mechanized divisions in the west, the brigades, cavalry and mountain
    # divisions in the east, rifle divisions where those run out.
    west = [*start["IZ TD"], *start["IZ MRD"]]
    east = [*start["IZ RB"], *start["IZ CD"], *start["IZ MtRD"]]
    fortified = list(start["IZ UR"])
    head = "Interior Zone (3.4): at least 4 units in every column 23-60; fortified regions on the Stalin Line"
    for c in range(FRONTIER_LAST_COLUMN + 1, 61):
        column = sorted(k for k, v in sk.hexes.items() if k[0] == c and sk.land(k) and v.get("country", "ussr") == "ussr")
        have = sum(len(stacks.get(k, [])) for k in column)
        stalin = [k for k in column if sk.hexes[k].get("stalin") and k not in stacks]
        while fortified and stalin and have < 4:
            put(stalin.pop(0), fortified.pop(0), head)
            have += 1
        spots = sorted((k for k in column if k not in stacks), key=lambda k: (spot_rank(sk, k, cities), k))
        queue = west if c <= WEST_LAST_COLUMN else east
        for k in spots[:max(0, 4 - have)]:
            put(k, (queue or rifle).pop(0), head)
    head = "Interior Zone: the rest, in the great cities and on the Stalin Line"
    for uid in fortified:
        put(next(k for k, v in sorted(sk.hexes.items()) if v.get("stalin") and k[0] > FRONTIER_LAST_COLUMN
                 and k not in stacks), uid, head)
    rest = [*west, *east, *rifle]
    for name in ["Leningrad", "Moscow", "Kiev", "Minsk", "Smolensk", "Odessa", "Tula", "Kharkov", "Sevastopol",
                 "Riga", "Vilnius", "Tallinn", "Rostov", "Stalino", "Dnepropetrovsk", "Voronezh"] * 4:
        if rest and len(stacks.get(where[name], [])) < STACK:
            put(where[name], rest.pop(0), head)
    if rest:
        raise SystemExit(f"Soviet set-up: {len(rest)} units not placed")


def spot_rank(sk: Sketch, k: Coord, cities: list[Coord]) -> tuple[int, int]:
    """Where a column's extra units stand: towns first, then river lines, each nearest a city."""
    river = any("river" in sk.sides.get(side_key(k, n), []) for n in neighbours(*k))
    near = min(distance(Hex(*k), Hex(*c)) for c in cities)
    return (0 if "town" in sk.hexes[k] else 1 if river else 2), near


def german_setup(o: Oob, groups: dict[str, list[str]], units: dict[str, Unit]) -> None:
    """3.7 and stacking 6.1-6.3, 7.1-7.3 by construction (see the module docstring)."""
    for grp, hexes in ZOMO_GROUPS.items():
        count = {h: 0 for h in hexes}
        small = {h: 0 for h in hexes}
        head = f"German: Army Group {grp} in the Greater-German ZOMO (3.7); the excess held back in the North OKH area (8.4)"
        for i, uid in enumerate(groups[grp]):
            is_small = units[uid].size in ("III", "II")
            order = hexes[i % len(hexes):] + hexes[:i % len(hexes)]
            h = next((h for h in order if count[h] < STACK and (not is_small or small[h] < 4)), "okh-north")
            if h != "okh-north":
                count[h] += 1
                small[h] += is_small
            o.setup.append((uid, h, head))
    head = "German: the 11th Army in Romania (3.7: at most 7 non-mechanized divisions and 1 assault-gun battalion)"
    for i, uid in enumerate(groups["Romania (German)"]):
        o.setup.append((uid, ELEVENTH_ARMY_HEXES[i % 2], head))
    romania = [h for h in ROMANIA_HEXES if h not in ELEVENTH_ARMY_HEXES]
    head = "Romanian units in Romania (3.7), stacked only with each other (7.3)"
    for i, uid in enumerate(groups["Romania"]):
        o.setup.append((uid, romania[i % len(romania)], head))
    o.setup.append((groups["Hungary"][0], HUNGARY_HEX, "The Hungarian Fast Corps, the only unit in Hungary (3.7)"))


ROMANIA_HEXES = ["1503S", "1604S", "1704S", *(f"18{r:02d}S" for r in range(5, 15)), "1914S", "2015S", "2115S"]


def build(sk: Sketch, where: dict[str, Coord], border: list[Coord]) -> Oob:
    o = Oob()
    groups = german_side(o)
    start = soviet_side(o)
    units = {u.id: u for u in o.units}
    german_setup(o, groups, units)
    soviet_setup(o, sk, where, border, start)
    return o
