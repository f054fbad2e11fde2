"""Build and publish: everything that turns the science into executed notebooks, checks and a website.

This layer depends on the science (:mod:`companion.losses`, :mod:`companion.metrics`, :mod:`companion.encoders`,
:mod:`companion.papers`, :mod:`companion.stats`, :mod:`companion.results`, ...) and never the other way round:
no module outside :mod:`companion.publish` imports from it, except the command line (:mod:`companion.__main__`).
"""
