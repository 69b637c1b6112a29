"""A seat's view as numbers, and every action as an index: what learning agents and learned
evaluations read and write (``docs/learning.md``).

- :mod:`features.encoding`: a fixed-size vector (and the same as named arrays) made of what
  one seat may see, for a board radius and a player count.
- :mod:`features.actions`: a fixed index of the base game's actions from the acting seat's
  side, with a legal-action mask.

It imports only the engine; numpy is optional (any writable sequence of floats takes an
encoding, a numpy row among them).
"""

from features.actions import ActionIndex, action_index
from features.encoding import Encoding, encoding

__all__ = ["ActionIndex", "Encoding", "action_index", "encoding"]
