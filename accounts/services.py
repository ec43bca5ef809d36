"""Writes for accounts: creating people with their profile in one step."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import transaction

from .models import Profile, Role


@transaction.atomic
def create_account(
    *,
    username: str,
    password: str,
    email: str = "",
    institution: str = "",
    role: str = Role.ORGANIZER,
    expertise: str = "",
    verified: bool = True,
) -> AbstractUser:
    """Create a user and profile; refuses taken usernames and unknown roles.

    `verified=False` (the sign-up page) makes an inactive account that waits
    for its e-mail address to be confirmed (`accounts.verification`)."""
    User = get_user_model()
    if role not in Role.values:
        raise ValidationError(f"role: {role!r} is not one of {Role.values}.")
    if User.objects.filter(username=username).exists():
        raise ValidationError(f"username: {username!r} is already taken.")
    user = User.objects.create_user(
        username=username, password=password, email=email, is_active=verified
    )
    Profile.objects.create(
        user=user,
        institution=institution,
        role=role,
        expertise=expertise,
        email_verified=verified,
    )
    return user


def profile_of(user) -> Profile:
    """The user's profile, created empty for users made outside `create_account`."""
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile
