"""Re-check open review assignments whenever who organizes a proposal changes.

Signals, not service calls, because the changes happen in `registry` and
`accounts` (and in the admin), which must not import `reviews`; the handlers
only hand over to `services.recheck_assignments`, where the rules live.
"""

from __future__ import annotations

from django.db.models.signals import m2m_changed, post_save
from django.dispatch import receiver

from accounts.models import Profile
from registry.models import Answer, Challenge

from . import services
from .conflicts import INSTITUTIONS_PARAMETER


@receiver(m2m_changed, sender=Challenge.co_organizers.through)
def co_organizers_changed(sender, instance, action, reverse, pk_set, **kwargs):
    if action != "post_add":
        return
    if reverse:  # user.co_organized_challenges.add(challenge, ...)
        for challenge in Challenge.objects.filter(pk__in=pk_set or ()):
            services.recheck_assignments(challenge=challenge)
    else:
        services.recheck_assignments(challenge=instance)


@receiver(post_save, sender=Challenge)
def challenge_saved(sender, instance, created, update_fields=None, **kwargs):
    # Only a change of owner matters (other fields are not about people).
    if not created and (update_fields is None or "owner" in update_fields):
        services.recheck_assignments(challenge=instance)


@receiver(post_save, sender=Answer)
def institutions_answered(sender, instance, **kwargs):
    if instance.number == INSTITUTIONS_PARAMETER and instance.task_id is None:
        services.recheck_assignments(challenge=instance.challenge)


@receiver(post_save, sender=Profile)
def profile_saved(sender, instance, created, **kwargs):
    if not created:
        services.recheck_assignments_of(instance.user)
