"""Bots against bots: the arena (entrant specs, seat-rotated schedules, win rates with
their intervals, reports), the in-process runner, and the ladder (``tournament/ladder``:
ladder files, ratings, a results store, local, Ray and server runners)."""
