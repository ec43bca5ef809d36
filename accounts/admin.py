from django.contrib import admin

from .models import Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "role", "institution", "email_verified"]
    list_filter = ["role", "email_verified"]
    search_fields = ["user__username", "institution"]
