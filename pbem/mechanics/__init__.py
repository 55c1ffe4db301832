"""Shared mechanics used by every game module: hexes, odds, tables, steps, stacking, dice requests."""
