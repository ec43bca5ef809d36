"""E-mail verification of self-made accounts (issue 30: spam by sign-up).

An account made through the sign-up page is inactive (`is_active` False, so
no sign-in, session, token or password reset works for it) and unverified
(`Profile.email_verified` False) until the link mailed to its address is
followed and confirmed. The link carries a token signed with `SECRET_KEY`
(`django.core.signing`) that names the account and a keyed hash of its state
(address, password, activity, verification); it expires after
`EMAIL_VERIFICATION_SECONDS` and stops working once used, or once the address
or password changes. Confirming takes a POST from the page the link opens, so
a mail scanner that fetches links confirms nothing.

Accounts made by staff (`createaccount`, the admin) or the demo are verified.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.crypto import salted_hmac

from config.site import absolute_url

from . import throttle
from .models import Profile

SALT = "accounts.verification"


def _state(user) -> str:
    profile = Profile.objects.filter(user=user).first()
    verified = profile.email_verified if profile is not None else True
    value = f"{user.pk}|{user.email}|{user.password}|{user.is_active}|{verified}"
    return salted_hmac(SALT, value).hexdigest()[:32]


def make_token(user) -> str:
    """A link token for `user` (URL-safe: letters, digits, `-_:`)."""
    return signing.dumps({"u": user.pk, "s": _state(user)}, salt=SALT)


def is_pending(user) -> bool:
    """Signed up and not confirmed yet."""
    return Profile.objects.filter(user=user, email_verified=False).exists()


def pending_user(token: str):
    """The unconfirmed account `token` confirms, or None when the token is
    forged, expired, already used or outdated (address or password changed)."""
    try:
        data = signing.loads(
            token, salt=SALT, max_age=settings.EMAIL_VERIFICATION_SECONDS
        )
    except signing.BadSignature:  # also SignatureExpired
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int):
        return None
    user = get_user_model().objects.filter(pk=data["u"]).first()
    if user is None or not is_pending(user) or data.get("s") != _state(user):
        return None
    return user


@transaction.atomic
def confirm_email(user) -> None:
    """The address is the user's: activate the account."""
    Profile.objects.filter(user=user).update(email_verified=True)
    user.is_active = True
    user.save(update_fields=["is_active"])


def verification_url(user) -> str:
    return absolute_url(reverse("confirm-email", args=[make_token(user)]))


def send_verification(user) -> bool:
    """Mail `user` their confirmation link; False (nothing sent) past
    `EMAIL_VERIFICATION_MAX_SENDS` per window or without an address."""
    if not user.email or not throttle.take_verification_send(user.get_username()):
        return False
    hours = max(1, settings.EMAIL_VERIFICATION_SECONDS // 3600)
    context = {"user": user, "url": verification_url(user), "hours": hours}
    send_mail(
        "Confirm your e-mail address for the challenge design registry",
        render_to_string("accounts/email/verify_body.txt", context),
        settings.DEFAULT_FROM_EMAIL,
        [user.email],
    )
    return True


@transaction.atomic
def purge_unconfirmed(*, joined_before) -> list[str]:
    """Delete the accounts that signed up before `joined_before` and never
    confirmed their address (inactive, so they own nothing); their usernames."""
    stale = get_user_model().objects.filter(
        is_active=False,
        profile__email_verified=False,
        date_joined__lt=joined_before,
    )
    names = sorted(stale.values_list("username", flat=True))
    stale.delete()
    return names
