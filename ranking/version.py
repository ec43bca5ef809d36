"""Version of the ranking engine, stored with every analysis so re-runs can be
matched to the code that produced them. Bump it whenever outputs can change."""

ENGINE_VERSION = "1.1.0"  # 1.1: bootstrap drawn in seeded blocks of 100
