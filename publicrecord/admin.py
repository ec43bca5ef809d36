from django.contrib import admin

from .models import Deposit, Feedback, FeedbackAnswer, ResearcherProfile


@admin.register(ResearcherProfile)
class ResearcherProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "orcid", "orcid_verified")
    list_filter = ("orcid_verified",)
    search_fields = ("user__username", "orcid")
    # set only by sign-in with ORCID: "verified" means ORCID said so
    readonly_fields = ("orcid_verified",)


class AnswerInline(admin.TabularInline):
    model = FeedbackAnswer
    extra = 0
    readonly_fields = ("author", "text", "created")


@admin.register(Feedback)
class FeedbackAdmin(admin.ModelAdmin):
    """Read-only: moderation goes through the chairs' hide action (audited)."""

    list_display = ("registration", "category", "author", "created", "hidden")
    list_filter = ("category", "hidden")
    readonly_fields = [f.name for f in Feedback._meta.fields]
    inlines = [AnswerInline]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Deposit)
class DepositAdmin(admin.ModelAdmin):
    list_display = ("version", "status", "doi", "attempts", "finished")
    list_filter = ("status",)
    readonly_fields = [f.name for f in Deposit._meta.fields]
