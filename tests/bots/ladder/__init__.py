"""Tests of the ladder (bots.ladder)."""
