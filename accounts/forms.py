from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from . import throttle
from .models import Role


class ThrottledSignInMixin:
    """Refuse sign-in while a username is locked after repeated failures."""

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        if throttle.is_locked(username, self.request):
            raise forms.ValidationError(
                "Too many failed sign-ins for this account; try again in "
                f"{throttle.lock_minutes()} minutes.",
                code="locked",
            )
        return super().clean()


class SignInForm(ThrottledSignInMixin, AuthenticationForm):
    pass


class AdminSignInForm(ThrottledSignInMixin, AdminAuthenticationForm):
    pass


class SignUpForm(UserCreationForm):
    email = forms.EmailField(required=True)
    institution = forms.CharField(max_length=300, required=False)
    role = forms.ChoiceField(
        choices=[
            (Role.ORGANIZER, "Organizer"),
            (Role.REVIEWER, "Technical reviewer"),
            (Role.CLINICAL_REVIEWER, "Clinical reviewer"),
        ],
        initial=Role.ORGANIZER,
        help_text="Chairs are appointed by the registry's staff.",
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")
