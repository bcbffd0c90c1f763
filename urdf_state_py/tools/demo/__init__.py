"""The demo: the bundled robot swept live through the node and shown as a TF tree in the terminal."""

from .demo import main

__all__ = ['main']
