"""Europe Engulfed (GMT Games): the Second World War in Europe at the strategic scale, on an area map
with hidden blocks. So far its data layer only (data.py): the map, the blocks, the charts and the
scenarios, typed and cross-checked; the rules and the game module come next."""
