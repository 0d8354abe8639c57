"""The table's views, thin: check access, parse the form, call one service, render one
partial. ``rolling`` (rolls, follow-ups, odds, the GM's rolls and calls), ``pages`` (the
campaign, session, roll screen and history pages), ``table`` (campaigns, joining, play
sessions and the GM's clocks, characters), ``rules`` (the rules pages)."""
