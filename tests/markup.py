"""A page read as a browser without JavaScript reads it, with the standard library's
html.parser: its ids and what refers to them, its words, and its forms with the values a
browser would send (so a test posts what a person tapping the page would post, the CSRF
token included)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

# Attributes whose value names ids (space-separated) of the same page.
ID_LISTS = ("aria-describedby", "aria-labelledby", "aria-controls")
# Elements whose text a reader never sees.
UNSEEN = {"script", "style", "template", "noscript"}


@dataclass
class Form:
    action: str
    method: str
    attrs: dict[str, str]
    # (name, value) for every control a submission sends as the page stands.
    fields: list[tuple[str, str]] = field(default_factory=list)
    # (name, values): a select and the values its options offer.
    selects: list[tuple[str, list[str]]] = field(default_factory=list)
    # (name, value) of every checkbox, ticked or not.
    boxes: list[tuple[str, str]] = field(default_factory=list)
    # The names of the selects that take several options (``multiple``).
    multiple: set[str] = field(default_factory=set)

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()

    def value(self, name: str) -> str:
        """The value this form sends under ``name`` ("" when it sends none)."""
        return next((value for each, value in self.fields if each == name), "")

    def can_send(self, name: str, values: list[str]) -> bool:
        """Whether a person can make this form send exactly ``values`` under ``name``: any
        set of its tick boxes or of a multiple select's options, exactly one option of a
        single select (its blank option sends "": none), anything typed into a text field."""
        boxes = [value for each, value in self.boxes if each == name]
        if boxes:
            return set(values) <= set(boxes) and len(set(values)) == len(values)
        options = next((options for each, options in self.selects if each == name), None)
        if options is not None:
            if name in self.multiple:
                return set(values) <= set(options)
            return (len(values) == 1 and values[0] in options) or (not values and "" in options)
        return any(each == name for each, _ in self.fields) and len(values) <= 1

    def data(self, **changes: str | list[str]) -> dict[str, str | list[str]]:
        """What a submission sends, with ``changes`` typed or ticked in (a list: one value per
        ticked box of that name)."""
        sent: dict[str, list[str]] = {}
        for name, value in self.fields:
            sent.setdefault(name, []).append(value)
        for name, value in changes.items():
            sent[name] = value if isinstance(value, list) else [value]
        # An empty list: nothing ticked, so the name is not sent at all.
        return {name: values if len(values) > 1 else values[0] for name, values in sent.items() if values}


class Page(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.references: list[tuple[str, str, str]] = []  # (tag, attribute, id)
        self.forms: list[Form] = []
        self.words: list[str] = []
        self._unseen = 0
        self._form: Form | None = None
        self._select: tuple[str, list[str], list[str]] | None = None  # name, options, selected
        self._textarea: tuple[str, list[str]] | None = None
        self.feed(html)
        self.close()

    @property
    def text(self) -> str:
        """The words of the page, as a reader sees them (tags gone, whitespace collapsed)."""
        return " ".join(" ".join(self.words).split())

    def form(self, *, action: str | None = None, css: str | None = None, id: str | None = None) -> Form:
        """The one form that matches."""
        found = [
            f
            for f in self.forms
            if (action is None or f.action == action)
            and (css is None or css in f.classes)
            and (id is None or f.attrs.get("id") == id)
        ]
        assert len(found) == 1, f"{len(found)} forms match action={action} css={css} id={id}"
        return found[0]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag in UNSEEN:
            self._unseen += 1
        if "id" in values:
            self.ids.append(values["id"])
        for name in ID_LISTS:
            for each in values.get(name, "").split():
                self.references.append((tag, name, each))
        if tag == "label" and values.get("for"):
            self.references.append((tag, "for", values["for"]))
        target = values.get("hx-target", "")
        if target.startswith("#"):
            self.references.append((tag, "hx-target", target[1:]))
        if tag == "form":
            self._form = Form(values.get("action", ""), values.get("method", "get").lower(), values)
            self.forms.append(self._form)
        elif self._form is not None:
            self._control(tag, values)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in UNSEEN:
            self._unseen -= 1

    def _control(self, tag: str, values: dict[str, str]) -> None:
        assert self._form is not None
        name = values.get("name")
        if tag == "input" and name and "disabled" not in values:
            kind = values.get("type", "text")
            if kind in ("checkbox", "radio"):
                if kind == "checkbox":
                    self._form.boxes.append((name, values.get("value", "on")))
                if "checked" in values:
                    self._form.fields.append((name, values.get("value", "on")))
            elif kind not in ("submit", "button", "image", "reset", "file"):
                self._form.fields.append((name, values.get("value", "")))
        elif tag == "select" and name:
            self._select = (name, [], [])
            if "multiple" in values:
                self._form.multiple.add(name)
        elif tag == "option" and self._select is not None:
            value = values.get("value", "")
            self._select[1].append(value)
            if "selected" in values:
                self._select[2].append(value)
        elif tag == "textarea" and name:
            self._textarea = (name, [])

    def handle_endtag(self, tag: str) -> None:
        if tag in UNSEEN and self._unseen:
            self._unseen -= 1
        if tag == "form":
            self._form = None
        elif tag == "select" and self._select is not None and self._form is not None:
            name, options, selected = self._select
            self._form.selects.append((name, options))
            if selected or options:
                self._form.fields.append((name, (selected or options)[0]))
            self._select = None
        elif tag == "textarea" and self._textarea is not None and self._form is not None:
            self._form.fields.append((self._textarea[0], "".join(self._textarea[1])))
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._textarea[1].append(data)
        if not self._unseen:
            self.words.append(data)
