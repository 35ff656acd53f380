"""cardrl games: each a PettingZoo AEC env over a pure engine (see docs/design.md)."""
