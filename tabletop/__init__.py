"""Tabletop: a live dice table for d6 dice-pool roleplaying games.

Kept free of imports: ``manage.py`` imports ``tabletop.bootstrap`` before any package is
installed, possibly under an old Python.
"""
