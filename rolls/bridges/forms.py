"""The console's form for a new key of the feed."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class FeedTokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=60,
        strip=True,
        help_text=_("Which tool holds it: “Foundry bridge”."),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
