"""Forget a remembered API token (``config.credentials``) as soon as it stops
being valid: when the token is deleted (revoked, regenerated) or its user is
deactivated. The provisional outage path would refuse it at drain time anyway;
forgetting it here keeps it from being accepted provisionally at all."""

from __future__ import annotations

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token

from config import credentials


@receiver(post_delete, sender=Token)
def forget_deleted_token(sender, instance: Token, **kwargs) -> None:
    credentials.forget([instance.key])


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def forget_tokens_of_inactive_user(sender, instance, **kwargs) -> None:
    if not instance.is_active:
        keys = Token.objects.filter(user=instance).values_list("key", flat=True)
        credentials.forget(list(keys))
