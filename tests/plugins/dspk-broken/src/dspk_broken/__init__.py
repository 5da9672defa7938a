"""Broken dspk runtime plugins, for tests."""
