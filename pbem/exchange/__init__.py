"""The exchange layer: files, keys, seals, the hash chain and the dice protocol (docs/protocol.md)."""
