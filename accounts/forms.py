from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from . import throttle
from .models import Role


class ThrottledSignInMixin:
    """Refuse or slow sign-in after repeated failures (`accounts.throttle`)."""

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        reason = throttle.refusal(username, self.request)
        if reason:
            raise forms.ValidationError(reason, code="locked")
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
