from __future__ import annotations

from django.urls import path

from games import staff_views, views

app_name = "games"
urlpatterns = [
    path("parties/", views.lobby, name="lobby"),
    path("parties/mes-parties/", views.my_games, name="mine"),
    path("parties/a-moi/", views.next_game, name="next"),
    path("parties/nouvelle/", views.create, name="create"),
    path("parties/contre-l-ordinateur/", views.against_computer, name="against_computer"),
    path("parties/<int:game_id>/", views.page, name="page"),
    path("parties/<int:game_id>/rejoindre/", views.join, name="join"),
    path("parties/<int:game_id>/quitter/", views.leave, name="leave"),
    path("parties/<int:game_id>/commencer/", views.start, name="start"),
    path("parties/<int:game_id>/inviter/", views.invite, name="invite"),
    path("parties/<int:game_id>/ordinateur/", views.seat_computer, name="seat_bot"),
    path("parties/<int:game_id>/ordinateur/retirer/", views.unseat_computer, name="unseat_bot"),
    path("parties/<int:game_id>/indice/", views.hint, name="hint"),
    path("parties/<int:game_id>/analyse/", views.analyse, name="analyse"),
    path("parties/<int:game_id>/plus-de-temps/", views.give_time, name="give_time"),
    path("parties/<int:game_id>/apercu/", views.preview, name="preview"),
    path("parties/<int:game_id>/jouer/", views.play, name="play"),
    path("parties/<int:game_id>/texte/apercu/", views.text_preview, name="text_preview"),
    path("parties/<int:game_id>/texte/jouer/", views.text_play, name="text_play"),
    path("parties/<int:game_id>/texte/plus-tard/", views.text_queue, name="text_queue"),
    path("parties/<int:game_id>/plus-tard/", views.queue, name="queue"),
    path("parties/<int:game_id>/plus-tard/annuler/", views.queue_cancel, name="queue_cancel"),
    path("parties/<int:game_id>/abandonner/", views.resign, name="resign"),
    path("parties/<int:game_id>/chat/", views.chat, name="chat"),
    path("parties/<int:game_id>/partie.json", views.record, name="record"),
    path("parties/<int:game_id>/rejouer.json", views.replay, name="replay"),
    path("verifier-un-mot/", views.check_word, name="check_word"),
    # Staff only (games/staff_views.py): the one exception to hidden information.
    path("equipe/parties/<int:game_id>/rejouer/", staff_views.replay, name="staff_replay"),
    path("equipe/parties/<int:game_id>/partie.json", staff_views.record, name="staff_record"),
]
