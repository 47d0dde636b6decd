"""Benchmarks that print figures (``make bench``); never run as tests."""
