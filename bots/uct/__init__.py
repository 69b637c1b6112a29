"""Monte Carlo tree search with UCB1 (UCT) on engine states, after "Optimizing UCT for
Settlers of Catan" (the paper in the project's reference documents).

One search, configured by :class:`SearchConfig` (its switches and named policies):

* **Plain UCT**: selection by Equation 1, ``mean + Cp * sqrt(ln N / n)``, maximising the
  reward of the seat that acts at each node (every seat plays for itself); expansion of one
  untried action at a time; a random rollout to the end of the game; reward 1 to the winner.
* **Virtual wins** (Szita et al.): a new child for a settlement starts with 20 visits and 20
  wins, a city with 10.
* **Move pruning** (Algorithm 1): where a city can be built only cities are considered,
  else where a settlement can be built only settlements, else every legal action. In the
  tree (``pruning``) and in the rollouts (``rollout_pruning``) independently.
* **Chance nodes** (sparse UCT): dice, development card draws and robber steals lead to one
  child per outcome; every iteration reseeds the state's random generator, so outcomes are
  drawn from the game's true distribution as the iteration passes them. Always on.
* **Ensemble UCT**: ``trees`` independent trees whose root statistics are summed
  (Equation 2); :mod:`bots.ensemble` runs them in separate processes. Each tree searches its
  own determinization (its own guess at the hidden cards).
* **Trade-optimistic moves** (Algorithm 2, at the root only): builds the seat cannot afford
  but could after 1:1 trades (as many cards as the price) count as moves; in the search the
  trades are taken as done, with the missing cards coming from opponents who hold them (else
  the bank).
* A budget in rollouts and/or milliseconds; whichever ends first.

The move finally chosen is, for an ensemble, the root child with the best summed mean (the
paper's BESTCHILD on the merged root), and for one tree the most visited (ties: the better
mean); ``final`` overrides either.

The package's modules: :mod:`~bots.uct.config` (the configuration), :mod:`~bots.uct.search`
(the tree, its root statistics and move pruning), :mod:`~bots.uct.setup_search` (set-up
settlements by flat Monte Carlo), :mod:`~bots.uct.evaluation` (scores for rollouts cut
short), :mod:`~bots.uct.trades` (trade-optimistic moves) and :mod:`~bots.uct.win_lines`
(wins this turn). Their public names are importable from ``bots.uct`` itself.
"""

from bots.uct.config import (
    EXPERIMENTS_COMMIT,
    FINAL_RULES,
    LEAF_SCORES,
    RENAMED,
    RETIRED,
    ChorePolicy,
    MovePolicy,
    SearchConfig,
    SetupPolicy,
)
from bots.uct.evaluation import network_rewards, position_rewards
from bots.uct.search import Node, RootStats, Search, actor, pruned_actions
from bots.uct.setup_search import SETUP_SPOTS, setup_wins
from bots.uct.trades import PRICES, assume_trades, missing, offerer_move, optimistic_moves
from bots.uct.win_lines import WIN_LINE_NODES, WIN_LINE_REACH, winning_move

__all__ = [
    "EXPERIMENTS_COMMIT",
    "FINAL_RULES",
    "LEAF_SCORES",
    "PRICES",
    "RENAMED",
    "RETIRED",
    "SETUP_SPOTS",
    "WIN_LINE_NODES",
    "WIN_LINE_REACH",
    "ChorePolicy",
    "MovePolicy",
    "Node",
    "RootStats",
    "Search",
    "SearchConfig",
    "SetupPolicy",
    "actor",
    "assume_trades",
    "offerer_move",
    "missing",
    "network_rewards",
    "optimistic_moves",
    "position_rewards",
    "pruned_actions",
    "setup_wins",
    "winning_move",
]
