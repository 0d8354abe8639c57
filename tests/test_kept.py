"""The bounded store of rendered markup that the feed and the cards keep per process."""

from __future__ import annotations

from rolls.sight.kept import Kept


def test_it_keeps_the_newest_writes_and_drops_the_oldest() -> None:
    kept: Kept[str, int] = Kept(2)
    kept.put("a", 1)
    kept.put("b", 2)
    kept.put("a", 3)  # rewritten: newest again
    kept.put("c", 4)

    assert ("a" in kept, "b" in kept, "c" in kept) == (True, False, True)
    assert (kept.get("a"), kept.get("b"), len(kept)) == (3, None, 2)
    kept.clear()
    assert len(kept) == 0
