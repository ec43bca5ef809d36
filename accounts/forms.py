from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from . import throttle
from .models import Role
from .verification import is_pending, send_verification


class ThrottledSignInMixin:
    """Refuse or slow sign-in after repeated failures (`accounts.throttle`)."""

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        reason = throttle.refusal(username, self.request)
        if reason:
            raise forms.ValidationError(reason, code="locked")
        return super().clean()


class SignInForm(ThrottledSignInMixin, AuthenticationForm):
    def clean(self):
        try:
            return super().clean()
        except forms.ValidationError as error:
            if error.code == "invalid_login" and (reason := self._unconfirmed()):
                raise forms.ValidationError(reason, code="unconfirmed") from None
            raise

    def _unconfirmed(self) -> str | None:
        """With the right password for an account that waits for its e-mail
        address: say so and mail a new link (within the limit)."""
        user = (
            get_user_model()
            .objects.filter(username=self.cleaned_data.get("username") or "")
            .first()
        )
        password = self.cleaned_data.get("password") or ""
        if user is None or not is_pending(user) or not user.check_password(password):
            return None
        if send_verification(user):
            return (
                "Your e-mail address is not confirmed yet: we have sent a new "
                "link to it; follow it to activate your account."
            )
        return (
            "Your e-mail address is not confirmed yet: follow the link we sent "
            "to it (the limit of new links is reached for now)."
        )


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
