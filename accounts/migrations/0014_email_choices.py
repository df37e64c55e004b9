"""Invitations and games ending get the turn's three email choices (#35).

Each was an on/off switch; it becomes each time / in the daily digest / never.
An account keeps what it got: on is *each time*, off is *never*.
"""

from django.db import migrations, models

SWITCHES = ("invitation_emails", "game_over_emails")
CHOICES = [("each", "Each time"), ("digest", "In the daily digest"), ("never", "Never")]


def choice_of(switched_on: bool) -> str:
    """The choice an on/off switch of before #35 becomes: what the player got stays."""
    return "each" if switched_on else "never"


def choices_as_before(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for name in SWITCHES:
        for switched_on in (True, False):
            User.objects.filter(**{f"{name}_before": switched_on}).update(
                **{name: choice_of(switched_on)}
            )


def switches_as_before(apps, schema_editor):
    """Back to on/off: only *never* was off (a digest reader hears of it: on)."""
    User = apps.get_model("accounts", "User")
    for name in SWITCHES:
        User.objects.filter(**{name: "never"}).update(**{f"{name}_before": False})


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0013_notification_choices"),
    ]

    operations = [
        migrations.AlterField(
            model_name="user",
            name="turn_emails",
            field=models.CharField(
                choices=CHOICES,
                default="each",
                max_length=8,
                verbose_name="emails when it is my turn",
            ),
        ),
        *(
            migrations.RenameField(model_name="user", old_name=name, new_name=f"{name}_before")
            for name in SWITCHES
        ),
        migrations.AddField(
            model_name="user",
            name="invitation_emails",
            field=models.CharField(
                choices=CHOICES,
                default="each",
                max_length=8,
                verbose_name="emails when I am invited to a game",
            ),
        ),
        migrations.AddField(
            model_name="user",
            name="game_over_emails",
            field=models.CharField(
                choices=CHOICES,
                default="each",
                max_length=8,
                verbose_name="emails when a game of mine ends",
            ),
        ),
        migrations.RunPython(choices_as_before, switches_as_before),
        *(migrations.RemoveField(model_name="user", name=f"{name}_before") for name in SWITCHES),
    ]
