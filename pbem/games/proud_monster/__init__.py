"""Proud Monster (Barbarossa 1941): rules digest ../shared/rules/proud-monster.md, rule numbers kept."""
