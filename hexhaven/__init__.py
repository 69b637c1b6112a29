"""Hexhaven's learning environments under Gymnasium's registry.

``import hexhaven`` registers ``hexhaven/Hexhaven-v0`` (:class:`learn.gym_env.HexhavenEnv`,
and :class:`learn.gym_env.HexhavenVectorEnv` for ``gymnasium.make_vec``) where Gymnasium is
installed (the ``learn`` extra); ``gymnasium.make("hexhaven:hexhaven/Hexhaven-v0")`` imports
it on the way. The PettingZoo environment is :func:`learn.aec.env`.
"""

from __future__ import annotations

ENV_ID = "hexhaven/Hexhaven-v0"


def register() -> bool:
    """Register the environments with Gymnasium (again is harmless); False where Gymnasium
    is not installed."""
    try:
        import gymnasium
    except ImportError:
        return False
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            ENV_ID,
            entry_point="learn.gym_env:HexhavenEnv",
            vector_entry_point="learn.gym_env:HexhavenVectorEnv",
        )
    return True


register()

__all__ = ["ENV_ID", "register"]
