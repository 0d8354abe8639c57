"""Serving plumbing that replaces stock pieces of Django, asgiref and Channels for speed."""
