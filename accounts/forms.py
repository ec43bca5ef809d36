from django import forms
from django.contrib.auth.forms import UserCreationForm

from .models import Role


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
