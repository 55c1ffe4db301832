"""The core rules of Proud Monster, by rulebook section: the basic game (digest A.4) and the
full-game ([ADV]) rules implemented so far, each behind its option (options.py).

- context.py: the working context of a transition (Ctx), the movement bookkeeping, decisions, the
  hooks of the feature rules; sources.py: supply sources (9.10-9.12);
- control.py (3.9, 4.x), weather.py (13.x), works.py (14.24-14.30), hedgehogs.py (14.40), arko.py
  (14.41), untried.py (2.15);
- movement.py (12.x, 8.2-8.3), stacking.py (6.x), allies.py (7.x, 8.5, 5.3);
- combat/: attacks.py (14.1-14.6), strength.py (14.8, 14.12), shifts.py (14.11-14.30), losses.py
  (14.35-14.38), resolve.py (14.5-14.39), retreat.py (14.32-14.35), advance.py (14.39).

Every function that implements a rule names it in its docstring; every problem and event carries the
rule number. The functions work on a ``Ctx``. The game module (module.py) drives them through the
sequence of play; the feature modules beside this package (supply, air, naval, mobile assault, RWR,
reinforcements, set-up) build on it, and those the core rules need act through the context's
hooks (context.Hooks), so that nothing here imports them (tests/games/proud_monster/test_pm_imports.py).
"""
