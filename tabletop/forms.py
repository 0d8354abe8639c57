"""Forms for accounts and joining."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import SetPasswordForm, UserCreationForm
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tabletop.text import visible_name


class SignupForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)


class DisplayNameForm(forms.Form):
    display_name = forms.CharField(
        label=gettext_lazy("Your name at the table"),
        max_length=40,
        validators=[visible_name],
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )

    def clean_display_name(self) -> str:
        name: str = self.cleaned_data["display_name"].strip()
        if not name:
            raise forms.ValidationError(_("Tell the table what to call you."))
        return name


class ClaimAccountForm(SetPasswordForm):
    """A player who joined by link picks a username and a password to log in elsewhere."""

    username = forms.CharField(max_length=150, help_text=gettext_lazy("Letters, digits and @/./+/-/_ only."))
    field_order = ["username", "new_password1", "new_password2"]

    def __init__(self, user: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(user, *args, **kwargs)
        if user.has_usable_password():
            # Changing a password someone set takes that password: a laptop or phone left
            # logged in at the table must not hand the account over.
            self.fields["old_password"] = forms.CharField(
                label=gettext_lazy("Current password"),
                strip=False,
                widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
            )
            self.order_fields(["old_password", *self.field_order])

    def clean_old_password(self) -> str:
        password: str = self.cleaned_data["old_password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your current password."))
        return password

    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"].strip()
        User = get_user_model()
        User.username_validator(username)
        if User.objects.filter(username__iexact=username).exclude(pk=self.user.pk).exists():
            raise forms.ValidationError(_("That username is taken."))
        return username

    def save(self, commit: bool = True) -> Any:
        self.user.username = self.cleaned_data["username"]
        return super().save(commit=commit)
