"""``Roll.contested``: whether a roll was made as a side of a contest or a flow, so the cards
and the follow-up service read a contest only for such a roll (``rolls.play.final``). Set for
every roll that already is a side."""

from django.db import migrations, models


def mark_sides(apps, schema_editor):
    Roll = apps.get_model("rolls", "Roll")
    Roll.objects.filter(contest_side__isnull=False).update(contested=True)


class Migration(migrations.Migration):
    dependencies = [("rolls", "0020_entry_key")]

    operations = [
        migrations.AddField(model_name="roll", name="contested", field=models.BooleanField(default=False)),
        migrations.RunPython(mark_sides, migrations.RunPython.noop),
    ]
