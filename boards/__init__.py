"""The board lab: balanced boards from a constraint model, fairness and balance scores,
searches over random boards, and pictures.

Built on the engine's boards and topology; the engine itself knows nothing of it (and
nothing here is needed to play). OR-Tools (the ``boards`` extra) is imported only by
:mod:`boards.constraint`, and only when a balanced board is asked for.

- :mod:`boards.constraint`: the CP-SAT model; :func:`~boards.constraint.generate_board`,
  :func:`~boards.constraint.count_layouts`
- :mod:`boards.validate`: the independent check of a layout
- :mod:`boards.fairness`: the simulated starting placements and the fairness score
- :mod:`boards.balance`: the balance components and the combined index
- :mod:`boards.search`: many random boards scored across processes
- :mod:`boards.render`: SVG and PNG pictures
- :mod:`app.boards`: the ``hexhaven board`` command
"""

from boards.balance import BalanceReport, balance_of, combined_index
from boards.errors import BoardFileError, BoardLabError, InvalidBoard, NoBoardFound
from boards.fairness import FairnessParams, FairnessResult, FairnessScorer, player_score
from boards.files import load_board
from boards.options import BalanceOptions
from boards.validate import Violation, board_violations, layout_violations

__all__ = [
    "BalanceOptions",
    "BalanceReport",
    "BoardFileError",
    "BoardLabError",
    "FairnessParams",
    "FairnessResult",
    "FairnessScorer",
    "InvalidBoard",
    "NoBoardFound",
    "Violation",
    "balance_of",
    "board_violations",
    "combined_index",
    "layout_violations",
    "load_board",
    "player_score",
]
