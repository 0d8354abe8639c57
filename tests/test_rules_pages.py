"""The public rules pages: one per dice system, with odds tables computed by the engine."""

from __future__ import annotations

import html
import importlib
import re
from dataclasses import dataclass, field
from fractions import Fraction
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.systems.base import percent
from rolls.systems.stars import botch_chance

CHOICES = "Our choices where the rules leave room"


@dataclass
class HtmlTable:
    caption: str = ""
    columns: list[str] = field(default_factory=list)
    rows: dict[str, list[str]] = field(default_factory=dict)


class TableParser(HTMLParser):
    """Every <table> of a page: its caption, column headings and rows by row heading."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[HtmlTable] = []
        self.text: list[str] | None = None
        self.row: list[str] | None = None
        self.in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append(HtmlTable())
        elif tag == "thead":
            self.in_head = True
        elif tag == "tr":
            self.row = []
        elif tag in ("caption", "th", "td"):
            self.text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "thead":
            self.in_head = False
        elif tag == "caption" and self.text is not None:
            self.tables[-1].caption = "".join(self.text).strip()
        elif tag in ("th", "td") and self.text is not None and self.row is not None:
            self.row.append("".join(self.text).strip())
        elif tag == "tr" and self.row:
            if self.in_head:
                self.tables[-1].columns = self.row[1:]
            else:
                self.tables[-1].rows[self.row[0]] = self.row[1:]
            self.row = None
        if tag in ("caption", "th", "td"):
            self.text = None

    def handle_data(self, data: str) -> None:
        if self.text is not None:
            self.text.append(data)


def tables_on(content: str) -> list[HtmlTable]:
    parser = TableParser()
    parser.feed(content)
    return parser.tables


def cell(content: str, caption: str, row: str, column: str) -> str:
    """The text of one cell of the table whose caption contains ``caption``."""
    (table,) = [table for table in tables_on(content) if caption in table.caption]
    return table.rows[row][table.columns.index(column)]


def page(client: Client, slug: str) -> str:
    response = client.get(reverse("rolls:rules-system", args=[slug]))
    assert response.status_code == 200
    return response.content.decode()


def docstring_choices(slug: str) -> list[str]:
    """The bold headings of the rules choices listed in the system module's docstring."""
    doc = importlib.import_module(f"rolls.systems.{slug}").__doc__ or ""
    return [heading.rstrip(".") for heading in re.findall(r"^- \*\*(.+?)\*\*", doc, re.MULTILINE)]


def page_choices(content: str) -> list[str]:
    """The bold headings in the page's choices section (up to the next heading)."""
    section = content.split(f"<h2>{CHOICES}</h2>", 1)[1].split("<h2", 1)[0]
    return [html.unescape(heading).rstrip(".") for heading in re.findall(r"<strong>(.+?)</strong>", section)]


def chance(slug: str, **data: object) -> str:
    system = registry.engine(slug)
    return percent(system.chance(system.parse_request(data)))


# --------------------------------------------------------------------------------------------


def test_the_index_links_every_system(client: Client, db: None) -> None:
    response = client.get(reverse("rolls:rules"))
    assert response.status_code == 200
    content = response.content.decode()
    for slug in registry.slugs():
        assert f'href="{reverse("rolls:rules-system", args=[slug])}"' in content
        assert registry.engine(slug).name in content


@pytest.mark.parametrize("slug", registry.slugs())
def test_each_page_answers_an_anonymous_visitor(client: Client, db: None, slug: str) -> None:
    content = page(client, slug)
    assert f"<h1>{registry.engine(slug).name}</h1>" in content
    assert CHOICES in content
    assert tables_on(content)


@pytest.mark.parametrize("slug", registry.slugs())
def test_a_page_at_the_table_does_not_say_it_is_missing(client: Client, db: None, slug: str) -> None:
    assert "Not at the table yet." not in page(client, slug)


@pytest.mark.parametrize(
    "slug",
    [
        "sixes",
        "kinds",
        "doubles",
        "sets",
        "stars",
    ],
)
def test_each_page_lists_exactly_the_choices_of_its_module(client: Client, db: None, slug: str) -> None:
    content = page(client, slug)
    for heading in docstring_choices(slug):
        assert heading in html.unescape(content)
    assert page_choices(content) == docstring_choices(slug)


def test_unknown_system_is_404(client: Client, db: None) -> None:
    assert client.get("/rules/dragons/").status_code == 404
    assert client.get("/rules/Sixes/").status_code == 404


# -- the tables match the engine ----------------------------------------------------------------


def test_sixes_table_matches_the_engine(client: Client, db: None) -> None:
    content = page(client, "sixes")
    assert cell(content, "successes needed", "5", "2 sixes") == chance("sixes", dice=5, need=2)


def test_kinds_table_matches_the_engine(client: Client, db: None) -> None:
    """KIN-5, KIN-6: a Challenge is passed by a group of its grade or bigger."""
    content = page(client, "kinds")
    caption = "Chance of passing a Challenge"
    assert cell(content, caption, "2", "Basic") == chance("kinds", dice=2, level="basic") == "17%"
    assert cell(content, caption, "5", "Critical") == chance("kinds", dice=5, level="critical")
    assert cell(content, caption, "9", "Impossible") == chance("kinds", dice=9, level="impossible")
    assert cell(content, caption, "4", "Impossible") == "0%"
    assert list(tables_on(content)[0].rows) == [str(n) for n in range(2, 10)]


def test_doubles_tables_match_the_engine(client: Client, db: None) -> None:
    """DBL-6, DBL-7, DBL-10: negative dice, a tie does not beat, drama dice."""
    content = page(client, "doubles")
    caption = "each Difficulty Number"
    assert cell(content, caption, "-2 (4 dice)", "4") == chance("doubles", dice=-2, dn=4)
    assert cell(content, caption, "3", "6") == chance("doubles", dice=3, dn=6)
    assert cell(content, caption, "8", "12") == chance("doubles", dice=8, dn=12)
    # One die never beats 6: a tie does not beat.
    assert cell(content, caption, "1", "6") == "0%"
    doubles = registry.engine("doubles")
    with_drama = doubles.chance_with_drama(doubles.parse_request({"dice": 2, "dn": 6}), 3)  # type: ignore[attr-defined]
    assert cell(content, "drama dice", "2, Challenging (6)", "+3 dice") == percent(with_drama)
    assert cell(content, "drama dice", "2, Challenging (6)", "none") == chance("doubles", dice=2, dn=6)


def test_sets_tables_match_the_engine(client: Client, db: None) -> None:
    """SET-5: a Bar's Size and Face, chosen or rolled."""
    content = page(client, "sets")
    assert cell(content, "Apprentice Bar", "5", "Face 6") == chance("sets", dice=5, bar_size=2, bar_face=6)
    assert cell(content, "Journeyman Bar", "6", "Face 3") == chance("sets", dice=6, bar_size=3, bar_face=3)
    assert cell(content, "Master Bar", "9", "rolled Face") == chance(
        "sets", dice=9, bar_size=4, bar_face="rolled"
    )
    assert cell(content, "Apprentice Bar", "1", "Face 1") == "0%"  # one die is never a set


def test_stars_tables_match_the_engine(client: Client, db: None) -> None:
    """STR-6, STR-7, STR-8, STR-10: training, botches, advantage and disadvantage."""
    content = page(client, "stars")
    stars = registry.engine("stars")

    def botch(**data: object) -> str:
        return percent(botch_chance(stars.parse_request(data)))

    assert cell(content, "at least one Star", "3 (Good)", "Novice") == chance(
        "stars", dice=3, training="novice"
    )
    assert cell(content, "at least one Star", "1 (Poor)", "Untrained") == "33%"
    assert cell(content, "a botch", "3 (Good)", "Untrained") == botch(dice=3) == "7%"
    assert cell(content, "a botch", "3 (Good)", "Professional") == "0%"
    assert cell(content, "rolled twice", "2 (Average)", "a Star, advantage") == chance(
        "stars", dice=2, advantage=True
    )
    assert cell(content, "rolled twice", "1 (Poor)", "botch, disadvantage") == botch(
        dice=1, disadvantage=True
    )
    assert botch(dice=1, disadvantage=True) == percent(1 - Fraction(5, 6) ** 2)


def test_the_tables_are_computed_once() -> None:
    for slug in registry.slugs():
        assert [id(table) for table in registry.engine(slug).rules_tables()] == [
            id(table) for table in registry.engine(slug).rules_tables()
        ]


def test_the_index_says_what_removal_and_secrecy_mean_at_the_table(client: Client, db: None) -> None:
    page = client.get(reverse("rolls:rules")).content.decode()

    assert 'id="at-the-table"' in page
    assert "cannot join again with the join link until the GM lets them back in" in page
    assert "not whether the GM did anything with it afterwards" in page
