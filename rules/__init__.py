"""Declarative rule packs and the engine that applies them."""
