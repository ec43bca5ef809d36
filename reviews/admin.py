from django.contrib import admin

from .models import Assignment, ConflictDeclaration, Decision, ProposalVersion, Review


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["challenge", "reviewer", "role", "status", "due"]
    list_filter = ["role", "status"]


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    list_display = ["assignment", "revision", "recommendation", "confidence"]
    readonly_fields = ["assignment", "revision", "submitted"]


@admin.register(Decision)
class DecisionAdmin(admin.ModelAdmin):
    list_display = ["challenge", "revision", "decision", "chair", "created"]
    # Decisions change the proposal's status: make them through the API/service.
    readonly_fields = [f.name for f in Decision._meta.fields]


@admin.register(ConflictDeclaration)
class ConflictDeclarationAdmin(admin.ModelAdmin):
    list_display = ["reviewer", "institution", "challenge", "created"]


@admin.register(ProposalVersion)
class ProposalVersionAdmin(admin.ModelAdmin):
    list_display = ["challenge", "revision", "created"]
    readonly_fields = [f.name for f in ProposalVersion._meta.fields]
