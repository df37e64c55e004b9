from django.db import migrations, models
from django.db.models import Count


def count_the_messages(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    ChatMessage = apps.get_model("games", "ChatMessage")
    counts = ChatMessage.objects.order_by().values("game_id").annotate(n=Count("pk"))
    for row in counts:
        Game.objects.filter(pk=row["game_id"]).update(chat_count=row["n"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_model_verbose_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="chat_count",
            field=models.PositiveIntegerField(default=0, verbose_name="chat messages"),
        ),
        migrations.RunPython(count_the_messages, migrations.RunPython.noop),
    ]
