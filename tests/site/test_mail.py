"""The embedded default keeps every email as a ``.eml`` file a mail client opens."""

from __future__ import annotations

import email
from email import policy

from django.core import mail

from diamino_site.mail import ConsoleAndFileBackend


def test_each_message_is_saved_as_its_own_eml_file(settings, tmp_path, capsys):
    settings.EMAIL_FILE_PATH = tmp_path
    first = mail.EmailMultiAlternatives(
        "Votre tour", "Texte un", "d@example.com", ["a@example.com"]
    )
    first.attach_alternative("<p>Un</p>", "text/html")
    second = mail.EmailMessage("Invitation", "Texte deux", "d@example.com", ["b@example.com"])

    sent = ConsoleAndFileBackend().send_messages([first, second])

    assert sent == 2
    files = sorted(tmp_path.iterdir())
    assert [f.suffix for f in files] == [".eml", ".eml"]
    parsed = [email.message_from_bytes(f.read_bytes(), policy=policy.default) for f in files]
    assert sorted(m["Subject"] for m in parsed) == ["Invitation", "Votre tour"]
    assert sorted(m["To"] for m in parsed) == ["a@example.com", "b@example.com"]
    html = next(m for m in parsed if m["Subject"] == "Votre tour").get_body(("html",))
    assert "<p>Un</p>" in html.get_content()
    assert "Votre tour" in capsys.readouterr().out  # and on the console too


def test_a_second_connection_adds_files_and_changes_none(settings, tmp_path):
    settings.EMAIL_FILE_PATH = tmp_path
    ConsoleAndFileBackend().send_messages([mail.EmailMessage("Un", "x", to=["a@example.com"])])
    before = {f.name: f.read_bytes() for f in tmp_path.iterdir()}
    ConsoleAndFileBackend().send_messages([mail.EmailMessage("Deux", "y", to=["a@example.com"])])
    after = {f.name: f.read_bytes() for f in tmp_path.iterdir()}
    assert len(after) == 2
    assert all(after[name] == content for name, content in before.items())
