"""Staff read the audit log in the admin; nobody can add, change or delete."""

from django.contrib import admin

from .models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ("created", "actor_name", "action", "target_type", "target_id")
    list_filter = ("action", "target_type")
    search_fields = ("actor_name", "action", "target_id")
    date_hierarchy = "created"
    readonly_fields = (
        "created",
        "actor",
        "actor_name",
        "action",
        "target_type",
        "target_id",
        "details",
    )

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_staff

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff
