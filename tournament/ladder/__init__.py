"""The ladder (``hexhaven ladder``): bots against bots on rotated seats, rated and kept.

A ladder is a TOML file (:mod:`tournament.ladder.config`); its games follow a balanced schedule
(:mod:`tournament.ladder.schedule`), run in local processes, on Ray or through a server
(:mod:`tournament.ladder.run`), and land one transaction each in a SQLite or PostgreSQL store
(:mod:`tournament.ladder.store`), so a ladder stopped at any point resumes where it stopped.
Ratings and the leaderboard come from :mod:`tournament.ladder.ratings`, the sequential test of
``hexhaven ladder ab`` from :mod:`tournament.ladder.sprt`. docs/ladder.md is the user's guide.
"""
