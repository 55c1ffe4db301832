"""Prepared assaults (14.x), by step: attacks.py, strength.py, shifts.py, losses.py, resolve.py,
retreat.py, advance.py."""
