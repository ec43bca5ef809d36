"""Version of the ranking engine, stored with every analysis so re-runs can be
matched to the code that produced them. Bump it whenever outputs can change."""

# 2.0: exactly rounded scores; cases in a canonical order given by their values
# (bootstrap draws differ from 1.x); integer bootstrap rank-interval bounds;
# bootstrap_unpaired; overflow refused. 1.1: bootstrap in seeded blocks of 100.
ENGINE_VERSION = "2.0.0"
