from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from monitoring.models import TaskRun


@admin.register(TaskRun)
class TaskRunAdmin(admin.ModelAdmin):
    """Read-only: the rows are the tasks' own record of their runs."""

    list_display = ("task", "finished_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: TaskRun | None = None) -> bool:
        return False
