"""The feed for other tools: a read-only stream of the table's public entries (docs/feed.md).

``tokens`` makes, revokes and checks the keys the GM hands to a bridge; ``events`` turns a log
entry into the feed's JSON event, as the table display shows it; ``stream`` is the
server-sent events stream itself, woken by the table's group on the channel layer."""
