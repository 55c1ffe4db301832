"""The exchange layer: files, keys, seals, the hash chain and the dice protocol (DESIGN §3-4)."""
