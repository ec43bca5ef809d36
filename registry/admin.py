from django.contrib import admin

from .models import Answer, Call, Challenge, StatusChange, Task


@admin.register(Call)
class CallAdmin(admin.ModelAdmin):
    list_display = ["slug", "title", "submission_deadline", "completeness_threshold"]
    filter_horizontal = ["chairs"]


class TaskInline(admin.TabularInline):
    model = Task
    extra = 0
    readonly_fields = ["version"]  # edit versions count saves; never typed in


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    list_display = ["name", "call", "owner", "status", "updated"]
    list_filter = ["status", "call"]
    search_fields = ["name"]
    inlines = [TaskInline]
    # Status changes go through services.set_challenge_state, never the admin form.
    readonly_fields = ["status", "revision", "version"]


@admin.register(StatusChange)
class StatusChangeAdmin(admin.ModelAdmin):
    list_display = ["challenge", "from_status", "to_status", "actor", "created"]
    readonly_fields = [f.name for f in StatusChange._meta.fields]


@admin.register(Answer)
class AnswerAdmin(admin.ModelAdmin):
    list_display = ["challenge", "task", "number", "updated"]
    readonly_fields = ["version", "updated_by"]
