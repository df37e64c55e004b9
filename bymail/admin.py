from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from bymail.models import InboundMessage


@admin.register(InboundMessage)
class InboundMessageAdmin(admin.ModelAdmin):
    """What each reply did, for staff: read-only (the raw bytes are the record)."""

    list_display = ("received_at", "via", "state", "reason", "game", "answered", "message_id")
    list_filter = ("state", "via", "answered")
    search_fields = ("message_id", "recipient", "envelope_from", "reason")
    exclude = ("raw",)
    readonly_fields = (
        "message_id",
        "size",
        "via",
        "envelope_from",
        "recipient",
        "received_at",
        "state",
        "reason",
        "processed_at",
        "game",
        "seat",
        "move_text",
        "move",
        "answered",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(
        self, request: HttpRequest, obj: InboundMessage | None = None
    ) -> bool:
        return False

    def has_delete_permission(
        self, request: HttpRequest, obj: InboundMessage | None = None
    ) -> bool:
        # The row is the Message-ID's dedupe record: deleting it would let the
        # same message be played again.
        return False
