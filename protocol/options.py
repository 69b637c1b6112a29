"""A game's options as the engine and the board lab take them: the engine configuration
of a game's options, its board made from its seed, and the published commitment to its seed.

The server, the replay and the screenshots all turn options into a game through here.
"""

from __future__ import annotations

import hashlib

import engine
from boards.options import BalanceOptions
from boards.play import DEFAULT_MIN_FAIRNESS, BoardUnavailable, board_for_game
from boards.presets import preset_names
from engine.constants import SETUP_EDITION
from protocol import messages as m
from protocol.payloads import board_from_payload, board_to_payload


def seed_hash(seed: int) -> str:
    """The published commitment to a game's seed."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def game_config(options: m.GameOptions) -> engine.GameConfig:
    """The engine configuration of a game's options (the board in ``layout`` when there is
    one); raises engine.ConfigError, also for a board kind not yet turned into a layout."""
    if options.layout is not None:
        try:
            board = engine.Board.from_layout(**board_from_payload(options.layout))
        except engine.BoardError as exc:
            raise engine.ConfigError(f"the board layout is not a legal board: {exc}") from exc
        return engine.GameConfig.with_board(
            board, players=options.players, victory_points=options.victory_points
        )
    if options.board not in ("random", "spiral"):
        raise engine.ConfigError(f"a {options.board} board needs its layout made first")
    return engine.GameConfig(
        players=options.players,
        victory_points=options.victory_points,
        board_setup=options.board,
        radius=options.radius,
        setup_edition=options.setup_edition,
    )


def _only_with(options: m.GameOptions) -> str | None:
    """Why the board options do not fit together, or None."""
    wanted = {"layout": "layout", "balance": "balanced", "min_fairness": "fair", "preset": "preset"}
    for name, kind in wanted.items():
        if getattr(options, name) is not None and options.board != kind:
            return f"{name} is an option of board={kind}, not board={options.board}"
    if options.board == "layout" and options.layout is None:
        return "board=layout needs the board in layout"
    if options.board == "preset" and options.preset is None:
        return f"board=preset needs a preset name: {', '.join(preset_names())}"
    if options.layout is not None and options.layout.radius != options.radius:
        return f"the layout has radius {options.layout.radius}, the game {options.radius}"
    return None


def with_board(options: m.GameOptions, seed: int) -> m.GameOptions:
    """A new game's options with its board made (``setup_edition`` set to the current one;
    ``layout`` filled in for ``balanced``, ``fair`` and ``preset`` boards, drawn from the
    game's seed; for a ``random`` board the counts its draw needs are built, once per
    radius). This can take a while (a constraint model, a fairness search, the counts of a
    large island): call it off the event loop. Raises engine.ConfigError with a sentence for
    the person."""
    problem = _only_with(options)
    if problem is not None:
        raise engine.ConfigError(problem)
    options = options.model_copy(update={"setup_edition": SETUP_EDITION})
    if options.board == "random":
        engine.prepare_random_boards(options.radius)
    if options.board in ("random", "spiral", "layout"):
        return options
    rules = options.balance
    balance = None
    if rules is not None:
        balance = BalanceOptions(
            separate_terrain=rules.separate_terrain,
            separate_brick_lumber=(
                options.radius <= 3
                if rules.separate_brick_lumber is None
                else rules.separate_brick_lumber
            ),
            spread_reds=rules.spread_reds,
            distinct_tokens=rules.distinct_tokens,
            max_pips=rules.max_pips,
            min_pips=rules.min_pips,
            max_token_sum=rules.max_token_sum,
        )
    try:
        chosen = board_for_game(
            options.board,
            seed,
            options.radius,
            players=options.players,
            balance=balance,
            min_fairness=(
                DEFAULT_MIN_FAIRNESS if options.min_fairness is None else options.min_fairness
            ),
            preset=options.preset,
        )
    except BoardUnavailable as exc:
        raise engine.ConfigError(str(exc)) from exc
    return options.model_copy(update={"layout": board_to_payload(chosen.board.to_dict())})
