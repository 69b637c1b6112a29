"""Tests of the ladder (tournament.ladder)."""
