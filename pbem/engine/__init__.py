"""The pure engine: game-module protocol, registry, events and the transition function."""
