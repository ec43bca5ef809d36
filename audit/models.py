"""Audit events: written once by `audit.services.record`, never changed."""

from django.conf import settings
from django.db import models


class AuditEventQuerySet(models.QuerySet):
    """Events are append-only: bulk updates and deletes are refused."""

    def update(self, **kwargs):
        raise AuditLogError("Audit events cannot be changed.")

    def delete(self):
        raise AuditLogError("Audit events cannot be deleted.")

    def bulk_update(self, objs, fields, batch_size=None):
        raise AuditLogError("Audit events cannot be changed.")


class AuditLogError(Exception):
    """An attempt to change or delete an audit event."""


class AuditEvent(models.Model):
    """Who did what to which object, when, with the details that matter."""

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

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["target_type", "target_id"])]

    def __str__(self) -> str:
        return f"{self.actor_name} {self.action} {self.target_type} {self.target_id}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise AuditLogError("Audit events cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AuditLogError("Audit events cannot be deleted.")
