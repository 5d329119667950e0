"""Forms of the console's staff page and of the invite link's sign-up page."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournament.errors import ServiceError

from ...models import StaffInvite


class _PasswordPair(forms.Form):
    """A password typed twice; the strength rules are Django's validators, in the service."""

    password = forms.CharField(
        widget=forms.PasswordInput(render_value=False), strip=False, label=gettext_lazy("Password")
    )
    password_again = forms.CharField(
        widget=forms.PasswordInput(render_value=False),
        strip=False,
        label=gettext_lazy("Password again"),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("password") and data.get("password_again") not in (None, data["password"]):
            self.add_error("password_again", _("the two passwords differ"))
        return data


def _scorekeepers_only(form: forms.Form) -> None:
    """A club night's Staff page offers the scorekeeper's role alone (its club's organisers
    direct it; the service refuses a director there too)."""
    role = form.fields["role"]
    role.choices = [(StaffInvite.Role.SCOREKEEPER, StaffInvite.Role.SCOREKEEPER.label)]
    role.error_messages["invalid_choice"] = ServiceError("staff_night_director").message


class StaffAccountForm(_PasswordPair):
    """A new account for a co-director or scorekeeper, made by the director."""

    field_order = ["role", "username", "email", "password", "password_again"]
    role = forms.ChoiceField(choices=StaffInvite.Role.choices, label=gettext_lazy("Role"))
    username = forms.CharField(max_length=150, label=gettext_lazy("Username"))
    email = forms.EmailField(required=False, label=gettext_lazy("Email"))

    def __init__(self, *args: Any, night: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if night:
            _scorekeepers_only(self)


class InviteForm(forms.Form):
    """A one-time sign-up link for a co-director or scorekeeper."""

    role = forms.ChoiceField(choices=StaffInvite.Role.choices, label=gettext_lazy("Role"))
    email = forms.EmailField(
        required=False,
        label=gettext_lazy("Email"),
        help_text=gettext_lazy("for your records; nothing is sent"),
    )

    def __init__(self, *args: Any, night: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if night:
            _scorekeepers_only(self)


class AcceptInviteForm(_PasswordPair):
    """The invited person's own username and password."""

    field_order = ["username", "email", "password", "password_again"]
    username = forms.CharField(max_length=150, label=gettext_lazy("Username"))
    email = forms.EmailField(required=False, label=gettext_lazy("Email"))


class SignUpForm(_PasswordPair):
    """Anyone's own account: a username, the e-mail address to confirm, a password."""

    field_order = ["username", "email", "password", "password_again"]
    username = forms.CharField(max_length=150, label=gettext_lazy("Username"))
    email = forms.EmailField(
        label=gettext_lazy("Email"), help_text=gettext_lazy("a link to confirm it is sent there")
    )
