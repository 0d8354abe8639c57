"""Campaigns, their members, characters and play sessions: the writes and the forms that make them."""
