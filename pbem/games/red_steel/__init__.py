"""Red Steel: Clash of Armor at Kishinev, July 1941 (the rules digest's basic game, 1.0-17.7)."""
