"""A third-party dspk runtime, for tests."""
