"""Players that are programs: baselines, the UCT family, belief tracking and the ladder.

Arrives with the bots issue; until then ``clients.demo`` plays its own simple policy.
"""
