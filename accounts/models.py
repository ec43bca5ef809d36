from django.conf import settings
from django.db import models


def display_name(user) -> str:
    """How pages name a person: the full name, else the username."""
    return user.get_full_name() or user.get_username()


class Role(models.TextChoices):
    """The role a person mainly acts in (permissions are still per object)."""

    ORGANIZER = "organizer", "Organizer"
    REVIEWER = "reviewer", "Technical reviewer"
    CLINICAL_REVIEWER = "clinical_reviewer", "Clinical reviewer"
    CHAIR = "chair", "Chair"


class Profile(models.Model):
    """What the registry needs to know about a person beyond Django's user."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    institution = models.CharField(max_length=300, blank=True)
    role = models.CharField(max_length=32, choices=Role.choices, default=Role.ORGANIZER)
    expertise = models.CharField(
        max_length=500,
        blank=True,
        help_text="Comma-separated keywords (task category, modality, application).",
    )
    # Accounts made by staff, commands or the demo are trusted; one that signed
    # itself up is inactive and unverified until its e-mail link is followed
    # (`accounts.verification`).
    email_verified = models.BooleanField(
        default=True,
        help_text="False for a sign-up whose e-mail address is not confirmed yet.",
    )

    def __str__(self) -> str:
        return f"{self.user.get_username()} ({self.get_role_display()})"

    @property
    def expertise_keywords(self) -> set[str]:
        return {k.strip().lower() for k in self.expertise.split(",") if k.strip()}


class ThrottleCounter(models.Model):
    """A sign-in throttling counter, used when the cache (Redis) is down.

    `accounts.throttle` counts in the cache; if the cache fails it counts here
    instead, so sign-in keeps working and keeps being throttled.
    """

    key = models.CharField(max_length=100, unique=True)
    value = models.BigIntegerField(default=0)
    expires = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key}={self.value}"
