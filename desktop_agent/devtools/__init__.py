"""Tools around the product: doctor, benchmarks, screenshot drivers, fakes for tests.

Nothing in the product (core, audio, adapters, runtime, gui, compose) imports this package.
"""
