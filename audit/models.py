"""Audit events: written once by `audit.services.record`, never changed; and the
base of every write-once row (`WriteOnceModel`: audit events, registrations)."""

from typing import ClassVar, NoReturn

from django.conf import settings
from django.db import models
from django.db.models.functions import Length, Trim
from django.db.models.lookups import GreaterThan


class WriteOnceError(Exception):
    """An attempt to change or delete a write-once row."""


class WriteOnceQuerySet(models.QuerySet):
    """Bulk updates and deletes of write-once rows are refused."""

    def update(self, **kwargs):
        self.model.refuse("changed")

    def delete(self):
        self.model.refuse("deleted")

    def bulk_update(self, objs, fields, batch_size=None):
        self.model.refuse("changed")


class WriteOnceModel(models.Model):
    """A row written once and never changed or deleted: the ORM refuses to save a
    stored row, to delete one, and to update or delete rows in bulk, raising
    `refusal` (the model's own subclass of `WriteOnceError`)."""

    refusal: ClassVar[type[WriteOnceError]] = WriteOnceError

    objects = WriteOnceQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.pk is not None:
            self.refuse("changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        self.refuse("deleted")

    @classmethod
    def refuse(cls, what: str) -> NoReturn:
        rows = str(cls._meta.verbose_name_plural).capitalize()
        raise cls.refusal(f"{rows} cannot be {what}.")


class AuditLogError(WriteOnceError):
    """An attempt to change or delete an audit event."""


# The actor of an event no person caused (a job, the watchdog, a command), and
# of one by a visitor who is not signed in: an event always names its actor.
SYSTEM_ACTOR = "(system)"
ANONYMOUS_ACTOR = "(anonymous)"


class AuditEventQuerySet(WriteOnceQuerySet):
    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        for event in objs:
            event.require_actor()
        return super().bulk_create(objs, *args, **kwargs)


class AuditEvent(WriteOnceModel):
    """Who did what to which object, when, with the details that matter.

    ``actor_name`` is never empty: a username, or the system or anonymous
    marker (issue 30: rows with no actor at all had been inserted)."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    actor_name = models.CharField(
        max_length=150, help_text="The actor's username, kept if the user goes."
    )
    action = models.CharField(max_length=64, db_index=True)
    target_type = models.CharField(max_length=100)
    target_id = models.CharField(max_length=64)
    details = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    refusal = AuditLogError

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["target_type", "target_id"])]
        constraints = [
            # The database's own copy of `require_actor` (issue 30): raw SQL
            # cannot insert an event naming nobody either.
            models.CheckConstraint(
                condition=models.Q(GreaterThan(Length(Trim("actor_name")), 0)),
                name="audit_event_names_its_actor",
                violation_error_message=(
                    "An audit event needs its actor's name or the system marker."
                ),
            )
        ]

    def __str__(self) -> str:
        return f"{self.actor_name} {self.action} {self.target_type} {self.target_id}"

    def save(self, *args, **kwargs):
        self.require_actor()
        super().save(*args, **kwargs)

    def require_actor(self) -> None:
        if not self.actor_name.strip():
            raise AuditLogError(
                "An audit event needs its actor's name or the system marker "
                f"{SYSTEM_ACTOR!r}."
            )
