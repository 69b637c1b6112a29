"""The ladder (``hexhaven ladder``): bots against bots on rotated seats, rated and kept.

A ladder is a TOML file (:mod:`bots.ladder.config`); its games follow a balanced schedule
(:mod:`bots.ladder.schedule`), run in local processes, on Ray or through a server
(:mod:`bots.ladder.run`), and land one transaction each in a SQLite or PostgreSQL store
(:mod:`bots.ladder.store`), so a ladder stopped at any point resumes where it stopped.
Ratings and the leaderboard come from :mod:`bots.ladder.ratings`, the sequential test of
``hexhaven ladder ab`` from :mod:`bots.ladder.sprt`. docs/ladder.md is the user's guide.
"""
